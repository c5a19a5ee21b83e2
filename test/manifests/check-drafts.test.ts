import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";

const root = tempDir("switch-swe-check-drafts-");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const shipped = join(packageRoot, "datasets", "real", "ipython", "manifest.json");

describe("datasets check: commit-derived texts never ship", () => {
  it("refuses a stage marked draft and, in an older file, a stage without text (exit 1, one line each); the shipped manifest passes", () => {
    expect(cli(["datasets", "check", shipped]).code).toBe(0);
    const m = JSON.parse(readFileSync(shipped, "utf8"));
    const [a, b] = m.tasks;
    a.stages[0].draft = true;
    delete b.stages[1].text;
    const file = join(root, "drafts.json");
    writeFileSync(file, JSON.stringify(m));
    const r = cli(["datasets", "check", file]);
    expect(r.code).toBe(1);
    expect(r.stdout.split("\n").slice(0, 2)).toEqual([
      `${file}: tasks[0].stages[0].draft: ${a.id}: a draft text (derived from commit messages) cannot ship: write the request for the dataset`,
      `${file}: tasks[1].stages[1].text: ${b.id}: no text, so materialization derives it from commit messages, a draft that cannot ship: write the request for the dataset`,
    ]);
    expect(r.stdout).toContain("0 of 1 manifest(s) pass; 2 problem(s)");
  });

  it("an authored stage is never a draft: one line, exit 1", () => {
    const m = JSON.parse(readFileSync(shipped, "utf8"));
    const i = m.tasks.findIndex((t: { stages: Array<{ provenance: string }> }) =>
      t.stages.some((s) => s.provenance === "benchmark-authored"),
    );
    const k = m.tasks[i].stages.findIndex((s: { provenance: string }) => s.provenance === "benchmark-authored");
    m.tasks[i].stages[k].draft = true;
    const file = join(root, "authored-draft.json");
    writeFileSync(file, JSON.stringify(m));
    const r = cli(["datasets", "check", file]);
    expect(r.stdout).toContain(
      `${file}: tasks[${i}].stages[${k}].draft: an authored stage's text is written for the dataset, never a draft`,
    );
    expect(r.code).toBe(1);
  });
});
