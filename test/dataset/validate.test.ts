import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { materializeRepo } from "../../src/dataset/repo-cache.js";
import { loadDataset } from "../../src/dataset/load.js";
import { cli } from "../helpers/cli.js";
import { layoutTen, tempDir, writeSyntheticDataset } from "../helpers/synthetic-dataset.js";

const cache = join(tempDir(), "cache");
const env = { SWITCH_SWE_CACHE: cache };

function fresh(): string {
  return writeSyntheticDataset(tempDir(), layoutTen.files, layoutTen.tasks.slice(0, 4));
}

describe("tasks validate", () => {
  it("accepts a valid dataset", () => {
    const r = cli(["tasks", "validate", fresh()], { env });
    expect(r.stdout + r.stderr).toContain("4 tasks in 1 repositories, all valid");
    expect(r.code).toBe(0);
  });

  it("lists every problem, one line each with file and field path, and exits 1", () => {
    const dir = fresh();
    const t1 = join(dir, "tasks", "t01");
    const task = JSON.parse(readFileSync(join(t1, "task.json"), "utf8"));
    task.verifier.fail_to_pass = [];
    task.requests[1].tests = ["tests/x.py::nope"];
    task.extra = true;
    writeFileSync(join(t1, "task.json"), JSON.stringify(task));
    // stage 2 of t02 rewritten so it cannot apply on top of stage 1
    const t2 = join(dir, "tasks", "t02");
    writeFileSync(join(t2, "stage-2.patch"), readFileSync(join(t2, "stage-2.patch"), "utf8").replace("STAGE_1", "STAGE_X"));
    rmSync(join(dir, "tasks", "t03", "tests.patch"));
    writeFileSync(join(dir, "tasks", "t04", "stage-9.patch"), "");
    const r = cli(["tasks", "validate", dir], { env });
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toContain(`${join(t1, "task.json")}: : Unrecognized key: "extra"`.replace(": : ", ": "));
    expect(r.stdout).toContain(`${join(t2, "stage-2.patch")}: does not apply`);
    expect(r.stdout).toContain(`${join(dir, "tasks", "t03", "tests.patch")}: file not found`);
    expect(r.stdout).toContain(`${join(dir, "tasks", "t04", "stage-9.patch")}: stage patch without a request`);
    expect(r.stdout).not.toMatch(/\n\s+at /);
  });

  it("reports static problems of a task that parses", () => {
    const dir = fresh();
    const t1 = join(dir, "tasks", "t01");
    const task = JSON.parse(readFileSync(join(t1, "task.json"), "utf8"));
    task.verifier.fail_to_pass = [];
    task.requests[1].tests = ["tests/x.py::nope"];
    task.verifier.pass_to_pass = ["a", "a"];
    writeFileSync(join(t1, "task.json"), JSON.stringify(task));
    const r = cli(["tasks", "validate", dir], { env });
    expect(r.code).toBe(1);
    const f = join(t1, "task.json");
    expect(r.stdout).toContain(`${f}: verifier.fail_to_pass: a task needs at least one fail-to-pass test`);
    expect(r.stdout).toContain(`${f}: requests[1].tests: tests/x.py::nope is not in verifier.fail_to_pass`);
    expect(r.stdout).toContain(`${f}: verifier.pass_to_pass: duplicate test id a`);
  });

  it("refuses an F2P test mapped to no stage, and a stage whose request is empty (alignment)", () => {
    const dir = fresh();
    const t1 = join(dir, "tasks", "t01");
    const task = JSON.parse(readFileSync(join(t1, "task.json"), "utf8"));
    task.verifier.fail_to_pass.push("tests/test_base.py::test_unasked");
    writeFileSync(join(t1, "task.json"), JSON.stringify(task));
    const t2 = join(dir, "tasks", "t02");
    const task2 = JSON.parse(readFileSync(join(t2, "task.json"), "utf8"));
    task2.requests[1].text = "  ";
    writeFileSync(join(t2, "task.json"), JSON.stringify(task2));
    const r = cli(["tasks", "validate", dir], { env });
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toContain(
      `${join(t1, "task.json")}: verifier.fail_to_pass: tests/test_base.py::test_unasked is mapped to no stage (list it in the tests of the request that asks for it)`,
    );
    expect(lines).toContain(`${join(t2, "task.json")}: requests[1].text: a request needs text`);
  });

  it("a missing dataset is bad input (exit 2)", () => {
    const r = cli(["tasks", "validate", join(tempDir(), "nope")], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("dataset directory not found");
  });

  it("materializes the same tree as the same commit id", async () => {
    const a = loadDataset(fresh());
    const b = loadDataset(fresh());
    process.env.SWITCH_SWE_CACHE = join(tempDir(), "c1");
    const ra = await materializeRepo(a, "demo");
    process.env.SWITCH_SWE_CACHE = join(tempDir(), "c2");
    const rb = await materializeRepo(b, "demo");
    expect(ra.head).toMatch(/^[0-9a-f]{40}$/);
    expect(rb.head).toBe(ra.head);
    expect(rb.gitDir).not.toBe(ra.gitDir);
  });
});
