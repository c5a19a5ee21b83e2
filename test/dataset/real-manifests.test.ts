import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { taskManifestSchema } from "../../src/manifests/task-manifest.js";

/** The real datasets the package ships: manifests only (URL, commits, test ids, digests, license). */
const realDir = join(packageRoot, "datasets", "real");
const names = existsSync(realDir)
  ? readdirSync(realDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
  : [];
const manifests = names.map((name) => ({
  name,
  file: join(realDir, name, "manifest.json"),
  text: readFileSync(join(realDir, name, "manifest.json"), "utf8"),
}));

/** Every string value of a JSON value, with its path. */
function strings(v: unknown, path = ""): Array<[string, string]> {
  if (typeof v === "string") return [[path, v]];
  if (Array.isArray(v)) return v.flatMap((x, i) => strings(x, `${path}[${i}]`));
  if (v && typeof v === "object") return Object.entries(v).flatMap(([k, x]) => strings(x, path ? `${path}.${k}` : k));
  return [];
}

describe("shipped real datasets (datasets/real)", () => {
  it("three repositories, each a manifest and nothing else", () => {
    expect(names.length).toBeGreaterThanOrEqual(3);
    for (const name of names) expect(readdirSync(join(realDir, name))).toEqual(["manifest.json"]);
  });

  it.each(manifests)(
    "$name: parses, has a license and a public URL, and every task has two or more stages and every F2P test mapped to one",
    ({ file, text }) => {
      const parsed = taskManifestSchema.safeParse(JSON.parse(text));
      expect(parsed.success, parsed.success ? "" : `${file}: ${parsed.error.message}`).toBe(true);
      const m = parsed.data!;
      expect(m.tasks.length).toBeGreaterThan(0);
      for (const repo of Object.values(m.repos)) {
        expect(repo.license).toMatch(/^[A-Za-z0-9.-]+( (AND|OR) [A-Za-z0-9.-]+)*$/);
        expect(repo.git).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
      }
      for (const t of m.tasks) {
        expect(t.stages.length, t.id).toBeGreaterThanOrEqual(2);
        // A stage need not bring a test of its own (docs/mining.md), but the task has F2P tests, each mapped to a stage.
        expect(t.verifier.fail_to_pass.length, t.id).toBeGreaterThan(0);
        const cuts = t.stages.flatMap((s) => (s.cut === undefined ? [] : [s.cut]));
        expect(new Set(cuts).size, t.id).toBe(cuts.length);
        // Benchmark-authored stages (no commit) only extend an upstream task: at most one per task here.
        expect(t.stages.length - cuts.length, t.id).toBeLessThanOrEqual(1);
        expect(t.verifier.fail_to_pass.sort()).toEqual(t.stages.flatMap((s) => s.tests).sort());
      }
    },
  );

  it.each(manifests)("$name: holds no upstream code, tests or text: only references, and our own authored stages", ({ text }) => {
    const m = JSON.parse(text) as { tasks: Array<{ stages: Array<{ text?: string; provenance: string; tests_patch?: string }> }> };
    // Request texts are derived from the upstream commits at materialization, never copied here; a
    // text here was written for the dataset, and says so.
    for (const s of m.tasks.flatMap((t) => t.stages)) {
      if (s.text !== undefined) expect(s.provenance).toMatch(/: request written for the dataset |^benchmark-authored$/);
      if (s.provenance !== "benchmark-authored") continue;
      // An authored stage's regression tests live in modules of their own: its tests patch holds no upstream line.
      const files = s.tests_patch!.split("\n").filter((l) => l.startsWith("diff --git ")).length;
      expect(files).toBeGreaterThan(0);
      expect(s.tests_patch!.split("\n").filter((l) => l === "new file mode 100644").length).toBe(files);
    }
    for (const [path, value] of strings(m)) {
      // Our own words and, on an authored stage, our own patches (docs/mining.md).
      if (/\.text$/.test(path) || /\.stages\[\d+\]\.(patch|tests_patch)$/.test(path)) continue;
      expect(value, path).not.toContain("\n");
      expect(value, path).not.toMatch(/^(diff --git|@@ |[+-]{3} )/);
      // Our own set-up commands pin every package of an environment: long, and never upstream text.
      if (!/\.environment\.setup\[\d+\]$/.test(path)) expect(value.length, path).toBeLessThan(400);
    }
  });
});
