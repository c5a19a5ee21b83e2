import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../verify/fixture.js";

const root = tempDir("switch-swe-merge-");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A shipped manifest split in two, as two mining runs over different ranges would leave it. */
const shipped = JSON.parse(readFileSync(join(packageRoot, "datasets", "real", "sympy", "manifest.json"), "utf8"));
const half = (tasks: unknown[]) => ({ ...shipped, tasks });
const write = (name: string, value: unknown) => {
  const file = join(root, name);
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
};
const a = write("a.json", half(shipped.tasks.slice(0, 6)));
// The second run's range overlapped the first: one task is in both.
const b = write("b.json", half(shipped.tasks.slice(5)));

describe("datasets merge", () => {
  it("joins runs in input order, keeps a task found twice once, and may write over one of its inputs", () => {
    const r = cli(["datasets", "merge", a, b, "--out", a, "--name", "sympy-all"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${shipped.tasks.length} task(s) of 1 repository from 2 manifest(s); ${a}\n`);
    const merged = JSON.parse(readFileSync(a, "utf8"));
    expect(merged.name).toBe("sympy-all");
    expect(merged.tasks).toEqual(shipped.tasks);
    expect(merged.repos).toEqual(shipped.repos);
  });

  it("refuses repositories judged otherwise and a task id that is another task, one line each (exit 2), writing nothing", () => {
    const other = structuredClone(half(shipped.tasks.slice(0, 2)));
    other.repos.sympy.environment.test_command = "python3 -m pytest {tests}";
    other.repos.sympy.license = "MIT";
    other.tasks[1].stages[0].text = "Another request.";
    const c = write("c.json", other);
    const out = join(root, "out.json");
    const r = cli(["datasets", "merge", b, c, "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      `${c}: repos.sympy.environment.test_command: differs from ${b}: tasks judged in other environments or classifications cannot form one dataset`,
      `${c}: repos.sympy.license: differs from ${b}: tasks judged in other environments or classifications cannot form one dataset`,
    ]);
    const same = structuredClone(half(shipped.tasks.slice(4, 6)));
    same.tasks[1].stages[0].text = "Another request.";
    const d = write("d.json", same);
    const dup = cli(["datasets", "merge", b, d, "--out", out]);
    expect(dup.code).toBe(2);
    expect(dup.stderr.trim()).toBe(`${d}: tasks[1].id: "${shipped.tasks[5].id}" is also a task of ${b}, with other stages, tests or texts`);
    expect(() => readFileSync(out)).toThrow();
  });

  it("refuses to overwrite a file that is none of its inputs", () => {
    const existing = write("existing.json", { keep: true });
    const r = cli(["datasets", "merge", b, "--out", existing]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`${existing}: already exists and is none of the manifests merged; choose another --out or remove it`);
    expect(JSON.parse(readFileSync(existing, "utf8"))).toEqual({ keep: true });
  });
});
