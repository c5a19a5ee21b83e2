import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { sampleDatasetDir } from "../../src/core/package-paths.js";
import { sourceMatcher } from "../../src/dataset/file-rules.js";
import { loadDataset } from "../../src/dataset/load.js";
import { validateDataset } from "../../src/dataset/validate.js";
import { buildSessions } from "../../src/sessions/build.js";
import { checkSessions } from "../../src/sessions/check.js";
import { tempDir } from "../helpers/synthetic-dataset.js";

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

describe("the embedded sample dataset", () => {
  const dataset = loadDataset(sampleDatasetDir);

  it("validates cleanly (patches apply in order)", async () => {
    process.env.SWITCH_SWE_CACHE = join(tempDir(), "cache");
    const { problems } = await validateDataset(sampleDatasetDir);
    expect(problems).toEqual([]);
  });

  it("has two substantial Python repositories with their own pytest suites", () => {
    const repos = Object.entries(dataset.manifest.repos);
    expect(repos.length).toBeGreaterThanOrEqual(2);
    for (const [name, spec] of repos) {
      const root = join(sampleDatasetDir, (spec as { path: string }).path);
      const files = walk(root).map((f) => relative(root, f));
      const isSource = sourceMatcher(spec);
      const source = files.filter((f) => f.endsWith(".py") && isSource(f));
      const lines = source.reduce(
        (n, f) =>
          n +
          readFileSync(join(root, f), "utf8")
            .split("\n")
            .filter((l) => l.trim() !== "").length,
        0,
      );
      const dirs = new Set(source.map((f) => f.slice(0, f.lastIndexOf("/"))));
      expect(lines, `${name} source lines`).toBeGreaterThanOrEqual(600);
      expect(dirs.size, `${name} source directories`).toBeGreaterThanOrEqual(4);
      expect(
        files.some((f) => /^tests\/test_.*\.py$/.test(f)),
        `${name} has a pytest suite`,
      ).toBe(true);
      const tasks = dataset.tasks.filter((t) => t.repo === name);
      expect(tasks.length, `${name} tasks`).toBeGreaterThanOrEqual(8);
      const multi = tasks.filter((t) => t.requests.length >= 3).length;
      expect(multi * 2, `${name}: most tasks have three or four stages`).toBeGreaterThan(tasks.length);
      for (const t of tasks) {
        const mapped = t.requests.flatMap((r) => r.tests ?? []);
        expect([...mapped].sort(), `${t.id}: every F2P test is mapped to a stage`).toEqual([...t.verifier.fail_to_pass].sort());
        expect(t.verifier.pass_to_pass.length, `${t.id} has P2P tests`).toBeGreaterThan(0);
      }
    }
  });

  it("every repository forms both near and far sessions", () => {
    const file = buildSessions(dataset, { seed: 0 });
    expect(checkSessions(file, dataset)).toEqual([]);
    for (const repo of Object.keys(dataset.manifest.repos)) {
      const localities = new Set(file.pairs.filter((p) => p.repo === repo).map((p) => p.locality));
      expect([...localities].sort(), repo).toEqual(["far", "near"]);
    }
  });
});
