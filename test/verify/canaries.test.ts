import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { judgeCanaries, plantConstantCanaries, selectionWith } from "../../src/verify/canaries.js";
import type { TestRun } from "../../src/testbed/test-run.js";
import { tempDir, writeFiles } from "./fixture.js";

const testFile = [
  "import pytest",
  "from pkg import widen, narrow",
  "",
  "",
  "def test_widen_basic():",
  "    assert widen(1) == 2",
  "",
  "",
  "@pytest.mark.parametrize(",
  '    "x",',
  "    [1, 2],",
  ")",
  "def test_narrow_param(x):",
  "    assert narrow(x) < x",
  "",
  "",
  "class TestWiden:",
  "    def test_widen_twice(self):",
  "        assert widen(widen(1)) == 3",
  "",
].join("\n");

function run(outcomes: Record<string, "passed" | "failed" | "error">, collectionErrors: string[] = []): TestRun {
  return {
    cases: new Map(Object.entries(outcomes)),
    byKey: new Map(),
    collectionErrors,
    notFound: [],
    timedOut: false,
  } as unknown as TestRun;
}

describe("planted canaries", () => {
  it("constant canaries (where no real test can be copied): a must-pass and a must-fail test, named from the file's words, never inside a decorator or class, and the file still parses", () => {
    for (let i = 0; i < 8; i++) {
      const dir = tempDir();
      writeFiles(dir, { "tests/test_pkg.py": testFile, "pkg/__init__.py": "def widen(x):\n    return x + 1\n" });
      const c = plantConstantCanaries(dir, "tests/test_pkg.py", ["passed", "failed"]);
      expect(c.map((x) => x.expect).sort()).toEqual(["failed", "passed"]);
      const text = readFileSync(join(dir, "tests/test_pkg.py"), "utf8");
      for (const x of c) {
        expect(x.id).toMatch(/^tests\/test_pkg\.py::test_(widen|basic|narrow|param|twice)(_(widen|basic|narrow|param|twice)){1,2}$/);
        expect(text).toContain(`\ndef ${x.id.split("::")[1]}():\n`);
      }
      expect(text).toContain(")\ndef test_narrow_param(x):");
      expect(text).toContain("class TestWiden:\n    def test_widen_twice(self):");
      execFileSync("python3", ["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", join(dir, "tests/test_pkg.py")]);
      expect(readFileSync(join(dir, "pkg/__init__.py"), "utf8")).not.toContain("def test_");
    }
  });

  it("distrusts a run whose must-fail canary passed or whose must-pass canary did not, and excuses a file that failed to collect", () => {
    const canaries = [
      { id: "t/test_a.py::test_x_y", file: "t/test_a.py", expect: "passed" as const },
      { id: "t/test_a.py::test_y_x", file: "t/test_a.py", expect: "failed" as const },
    ];
    expect(judgeCanaries(run({ "t/test_a.py::test_x_y": "passed", "t/test_a.py::test_y_x": "failed" }), canaries, {}).trusted).toBe(true);
    const forged = judgeCanaries(run({ "t/test_a.py::test_x_y": "passed", "t/test_a.py::test_y_x": "passed" }), canaries, {});
    expect(forged).toMatchObject({
      trusted: false,
      problems: ["planted test t/test_a.py::test_y_x must have failed but was reported passed"],
    });
    expect(judgeCanaries(run({ "t/test_a.py::test_y_x": "failed" }), canaries, {}).problems).toEqual([
      "planted test t/test_a.py::test_x_y must have passed but was not reported",
    ]);
    expect(judgeCanaries(run({}, ["t/test_a.py"]), canaries, { "t/test_a.py::test_real": "error" }).trusted).toBe(true);
    // A collection error does not excuse them when a required test of that file is reported passed.
    expect(
      judgeCanaries(run({ "t/test_a.py::test_real": "passed" }, ["t/test_a.py"]), canaries, { "t/test_a.py::test_real": "passed" }).trusted,
    ).toBe(false);
    expect(selectionWith(["a", "b"], canaries).sort()).toEqual(["a", "b", ...canaries.map((c) => c.id)].sort());
  });

  it("judges a copy of a required test against its original: a mutant must not pass and a twin must pass where the original passed; a failing original needs no evidence", () => {
    const copies = [
      { id: "t/test_a.py::test_b_c", file: "t/test_a.py", expect: "failed" as const, of: "t/test_a.py::test_real" },
      { id: "t/test_a.py::test_c_d", file: "t/test_a.py", expect: "passed" as const, of: "t/test_a.py::test_old" },
    ];
    const both = { "t/test_a.py::test_real": "passed", "t/test_a.py::test_old": "passed" };
    // Honest: the mutant fails (or errors), the twin passes.
    expect(judgeCanaries(run({ "t/test_a.py::test_b_c": "failed", "t/test_a.py::test_c_d": "passed" }), copies, both).trusted).toBe(true);
    expect(judgeCanaries(run({ "t/test_a.py::test_b_c": "error", "t/test_a.py::test_c_d": "passed" }), copies, both).trusted).toBe(true);
    // Forged: the mutant passes beside its passing original; the twin fails beside its passing original.
    const forged = judgeCanaries(run({ "t/test_a.py::test_b_c": "passed", "t/test_a.py::test_c_d": "failed" }), copies, both);
    expect(forged.trusted).toBe(false);
    expect(forged.problems).toEqual([
      "planted test t/test_a.py::test_b_c must have failed but was reported passed (a mutant of t/test_a.py::test_real, which passed)",
      "planted test t/test_a.py::test_c_d must have passed but was reported failed (a twin of t/test_a.py::test_old, which passed)",
    ]);
    expect(forged.tests[0]).toEqual({ id: "t/test_a.py::test_b_c", expected: "failed", reported: "passed", of: "t/test_a.py::test_real" });
    expect(judgeCanaries(run({ "t/test_a.py::test_c_d": "passed" }), copies, both).problems).toEqual([
      expect.stringMatching(/test_b_c must have failed but was not reported/),
    ]);
    // A wrong implementation may pass a mutant honestly; its original then fails, and the task is unresolved anyway.
    expect(
      judgeCanaries(run({ "t/test_a.py::test_b_c": "passed", "t/test_a.py::test_c_d": "failed" }), copies, {
        "t/test_a.py::test_real": "failed",
        "t/test_a.py::test_old": "error",
      }).trusted,
    ).toBe(true);
  });
});
