import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { writeShapesHistory } from "../helpers/shapes-history.js";
import { git, tempDir } from "../verify/fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const root = tempDir("switch-swe-mine-");
const env = { SWITCH_SWE_CACHE: join(root, "cache") };
const repo = join(root, "shapes");
const out = join(root, "mined");

beforeAll(() => writeShapesHistory(root));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const taskDirs = (d: string) => readdirSync(join(d, "tasks")).sort();
const filesOf = (d: string, id: string) =>
  Object.fromEntries(
    readdirSync(join(d, "tasks", id))
      .sort()
      .map((f) => [f, readFileSync(join(d, "tasks", id, f), "utf8")]),
  );

describe.skipIf(missingTool)("tasks mine", () => {
  it(
    "mines the merged branch and the chain, rejects the chain without F2P, and the dataset validates and qualifies",
    { timeout: 600_000 },
    () => {
      const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "2"], { env });
      expect(r.stdout).toMatch(/^\d+ commits, 3 candidate\(s\): 2 mined, 1 rejected \(1 no F2P\); /);
      expect(r.code).toBe(0);
      const ids = taskDirs(out);
      expect(ids).toHaveLength(2);
      const tasks = ids.map((id) => JSON.parse(readFileSync(join(out, "tasks", id, "task.json"), "utf8")));
      const merged = tasks.find((t) => t.requests[0].text.startsWith("Add the area of a rectangle"))!;
      expect(merged.requests.map((q: { tests: string[] }) => q.tests)).toEqual([
        ["tests/test_rect.py::test_rect"],
        ["tests/test_triangle.py::test_triangle"],
      ]);
      expect(merged.requests[1].text).toBe("Add the area of a triangle");
      const chain = tasks.find((t) => t.requests[0].text === "Upper-case labels")!;
      expect(chain.verifier.fail_to_pass).toEqual(["tests/test_label.py::test_upper", "tests/test_label.py::test_unit"]);
      expect(readFileSync(join(out, "tasks", chain.id, "stage-1.patch"), "utf8")).toContain("+    return name.upper()");
      expect(readFileSync(join(out, "tasks", chain.id, "tests.patch"), "utf8")).not.toContain("shapes/text/label.py");

      const report = JSON.parse(readFileSync(join(out, "mine-report.json"), "utf8"));
      // Two stages: three states, run twice each when mined, once when the first run rejects.
      expect(report.rejected).toEqual([expect.objectContaining({ reason: "no F2P", test_runs: 3 })]);
      expect(report.mined.map((m: { test_runs: number }) => m.test_runs)).toEqual([6, 6]);
      expect(cli(["tasks", "validate", out], { env }).code).toBe(0);
      const q = cli(["tasks", "qualify", out, "--runs", "1"], { env });
      expect(q.stdout).toContain("2 of 2 task(s) qualify");
    },
  );

  it("run again on a finished --out, qualifies nothing again; refuses a bad range in one line (exit 2)", () => {
    const manifest = readFileSync(join(out, "manifest.json"), "utf8");
    const again = cli(["tasks", "mine", repo, "--out", out, "--runs", "2"], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("2 mined and 1 rejected before, 0 left");
    expect(again.stdout).toMatch(/3 candidate\(s\): 2 mined, 1 rejected \(1 no F2P\); /);
    expect(readFileSync(join(out, "manifest.json"), "utf8")).toBe(manifest);
    const range = cli(["tasks", "mine", repo, "--out", join(root, "other"), "--range", "nope..main"], { env });
    expect(range.code).toBe(2);
    expect(range.stderr.trim()).toBe(`${repo}: --range: "nope..main" is not a revision range of this repository`);
  });
});

describe.skipIf(missingTool)("datasets materialize", () => {
  it("rebuilds the mined tasks byte for byte from the manifest and a bundle of the repository", () => {
    const bundle = join(root, "shapes.bundle");
    git(repo, "bundle", "create", "-q", bundle, "--all");
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(JSON.stringify(manifest)).not.toContain("return name.upper()");
    const again = join(root, "materialized");
    const r = cli(["datasets", "materialize", join(out, "manifest.json"), "--out", again, "--repo", `shapes=${bundle}`], {
      env: { SWITCH_SWE_CACHE: join(root, "cache2") },
    });
    expect(r.stdout).toBe(`2 task(s) materialized into ${again}; every digest matches\n`);
    expect(r.code).toBe(0);
    expect(taskDirs(again)).toEqual(taskDirs(out));
    for (const id of taskDirs(out)) expect(filesOf(again, id)).toEqual(filesOf(out, id));
    expect(cli(["tasks", "validate", again], { env }).code).toBe(0);
  });

  it("a digest that does not match is refused with one line per mismatch, and nothing is written", () => {
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    manifest.tasks[0].stages[1].patch_sha256 = "0".repeat(64);
    const file = join(root, "tampered.json");
    writeFileSync(file, JSON.stringify(manifest));
    const dest = join(root, "tampered");
    const r = cli(["datasets", "materialize", file, "--out", dest], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${file}: tasks\\[0\\]\\.stages\\[1\\]: ${manifest.tasks[0].id}: stage-2\\.patch has sha256 [0-9a-f]{64}, the manifest records 0{64}$`,
        ),
      ),
    ]);
    expect(() => readdirSync(join(dest, "tasks"))).toThrow();
  });
});
