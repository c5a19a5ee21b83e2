import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../src/dataset/load.js";
import { buildSessions } from "../../src/sessions/build.js";
import { checkSessions } from "../../src/sessions/check.js";
import { cli } from "../helpers/cli.js";
import { tempDir, writeSyntheticDataset } from "../helpers/synthetic-dataset.js";

// A flat package: ten tasks, each changing its own module, all in one directory.
const modules = ["console", "segment", "live", "text", "style", "markup", "table", "panel", "tree", "rule"];
const flat = {
  files: modules.map((m) => `pkg/${m}.py`),
  tasks: modules.map((m, i) => ({ id: `t${String(i + 1).padStart(2, "0")}`, files: [`pkg/${m}.py`], stages: 2 })),
};
const subsystems = {
  output: ["pkg/{console,segment,live}.py"],
  text: ["pkg/{text,style,markup}.py"],
  layout: ["pkg/{table,panel,tree}.py"],
};

function withSubsystems(dir: string, groups: unknown): void {
  const path = join(dir, "dataset.json");
  const m = JSON.parse(readFileSync(path, "utf8")) as { repos: Record<string, { source?: unknown }> };
  m.repos.demo!.source = { subsystems: groups };
  writeFileSync(path, JSON.stringify(m, null, 2));
}

describe("declared subsystems", () => {
  it("a flat package forms only near pairs by directory, and far ones once its subsystems are declared", () => {
    const dir = writeSyntheticDataset(tempDir(), flat.files, flat.tasks);
    const byDir = buildSessions(loadDataset(dir), { seed: 0 });
    expect(byDir.pairs.length).toBe(10);
    expect(byDir.pairs.every((p) => p.locality === "near")).toBe(true);

    withSubsystems(dir, subsystems);
    const dataset = loadDataset(dir);
    const file = buildSessions(dataset, { seed: 0 });
    expect(checkSessions(file, dataset)).toEqual([]);
    const groupOf = (id: string) => {
      const f = file.pairs.find((p) => p.focus === id)?.source_files[id]?.[0] ?? flat.tasks.find((t) => t.id === id)!.files[0]!;
      const name = /pkg\/(\w+)\.py/.exec(f)![1]!;
      return Object.entries(subsystems).find(([, g]) => g[0]!.includes(name))?.[0] ?? `dir:${name}`;
    };
    // A group holds three modules, so a focus has two near candidates at most: every pair is far, and
    // no interruption is of the focus's subsystem. pkg/rule.py is in no group: its unit is pkg/.
    expect(file.pairs.length).toBe(10);
    for (const p of file.pairs) {
      expect(p.locality).toBe("far");
      for (const i of p.interruptions) expect(groupOf(i)).not.toBe(groupOf(p.focus));
    }

    // The independent checker computes units itself: claiming "near" for one of these pairs fails.
    const tampered = JSON.parse(JSON.stringify(file)) as typeof file;
    tampered.pairs[0]!.locality = "near";
    expect(checkSessions(tampered, dataset).map((v) => v.property)).toContain("locality");
  });

  it("the first declared group that matches a file decides its unit", () => {
    const dir = writeSyntheticDataset(tempDir(), flat.files, flat.tasks);
    // "everything" comes first and matches every module: one unit, so every pair is near again.
    withSubsystems(dir, { everything: ["pkg/*.py"], ...subsystems });
    const file = buildSessions(loadDataset(dir), { seed: 0 });
    expect(file.pairs.every((p) => p.locality === "near")).toBe(true);
  });

  it("a bad subsystem declaration is refused in one line per problem, exit 2", () => {
    const dir = writeSyntheticDataset(tempDir(), flat.files, flat.tasks);
    withSubsystems(dir, { "bad name": ["pkg/a.py"], empty: [] });
    const r = cli(["sessions", "build", dir, "--seed", "0", "--out", join(tempDir(), "s.json")], {
      env: { SWITCH_SWE_CACHE: join(tempDir(), "cache") },
    });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines, r.stderr).toHaveLength(2);
    expect(lines[0]).toMatch(/dataset\.json: repos\.demo\.source\.subsystems\.bad name: .*a subsystem name/);
    expect(lines[1]).toMatch(/dataset\.json: repos\.demo\.source\.subsystems\.empty: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
