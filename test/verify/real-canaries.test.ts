import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { plantCanaries } from "../../src/verify/real-canaries.js";
import { pytestRunner } from "../../src/testbed/pytest-runner.js";
import { tempDir, writeFiles } from "./fixture.js";

/**
 * Canaries made of the required tests (src/testbed/canary-tests.py through plantCanaries): on a
 * correct implementation every mutant fails, every twin passes, every required test still passes
 * under the id it runs as, for module functions, parametrized tests (ids kept), methods of pytest
 * and unittest classes, async tests and fixture users; the copies differ from their originals by the
 * def line and at most one expected value, and the rest of the file is untouched.
 */

const pkg = {
  "shapes/__init__.py": [
    "def area(w, h):",
    "    return w * h",
    "",
    "",
    "def label(s):",
    "    return s.upper()",
    "",
    "",
    "def parts(s):",
    '    return s.split("-")',
    "",
    "",
    "async def aarea(w, h):",
    "    return w * h",
    "",
  ].join("\n"),
  // Runs coroutine tests without a plugin (none is installed here).
  "tests/conftest.py": [
    "import asyncio, inspect",
    "",
    "",
    "def pytest_pyfunc_call(pyfuncitem):",
    "    if inspect.iscoroutinefunction(pyfuncitem.obj):",
    "        args = {k: pyfuncitem.funcargs[k] for k in pyfuncitem._fixtureinfo.argnames}",
    "        asyncio.run(pyfuncitem.obj(**args))",
    "        return True",
    "",
  ].join("\n"),
};

const testFile = [
  "import unittest",
  "",
  "import pytest",
  "",
  "from shapes import aarea, area, label, parts",
  "",
  "",
  "@pytest.fixture",
  "def unit():",
  "    return 1",
  "",
  "",
  "def test_area_basic():",
  "    # a comment the copy keeps",
  "    assert area(2, 3) == 6",
  "    assert area(0, 3) == 0",
  "",
  "",
  "@pytest.mark.parametrize(",
  '    "w,h,want",',
  "    [(1, 2, 2), (3, 3, 9)],",
  '    ids=["thin", "square"],',
  ")",
  "def test_area_cases(w, h, want):",
  "    assert area(w, h) == want",
  "",
  "",
  "def test_parts_split():",
  '    assert parts("left-mid-right") == ["left", "mid", "right"]',
  '    assert label("ab-cd") == "AB-CD"',
  "",
  "",
  "def test_label_none():",
  '    assert label("x") is not None',
  "    assert not area(0, 5)",
  "",
  "",
  "async def test_async_area():",
  "    assert await aarea(2, 2) == 4",
  "",
  "",
  "def test_raises_only():",
  "    with pytest.raises(AttributeError):",
  "        label(None)",
  "",
  "",
  "def test_early_return():",
  "    if area(1, 1):",
  "        return",
  "    assert area(1, 1) == 7",
  "",
  "",
  "def test_with_fixture(unit):",
  "    assert area(unit, unit) == 1",
  "",
  "",
  "def test_named(request):",
  '    assert request.node.name == "test_named"',
  "",
  "",
  "class TestLabel:",
  "    def test_label_upper(self):",
  '        assert label("ab") == "AB"',
  "",
  "    def test_label_empty(self):",
  '        assert label("") == ""',
  "",
  "",
  "class TestUnit(unittest.TestCase):",
  "    def test_area_unit(self):",
  "        self.assertEqual(area(4, 1), 4)",
  "",
  "    def test_label_true(self):",
  '        self.assertTrue(label("a") == "A")',
  "",
].join("\n");

const f2p = [
  "tests/test_shapes.py::test_area_basic",
  "tests/test_shapes.py::test_area_cases[thin]",
  "tests/test_shapes.py::test_area_cases[square]",
  "tests/test_shapes.py::test_parts_split",
  "tests/test_shapes.py::test_label_none",
  "tests/test_shapes.py::test_async_area",
  "tests/test_shapes.py::test_raises_only",
  "tests/test_shapes.py::test_early_return",
  "tests/test_shapes.py::TestLabel::test_label_upper",
  "tests/test_shapes.py::TestUnit::test_area_unit",
  "tests/test_shapes.py::TestUnit::test_label_true",
];
const p2p = [
  "tests/test_shapes.py::test_with_fixture",
  "tests/test_shapes.py::test_named",
  "tests/test_shapes.py::TestLabel::test_label_empty",
];

/** pytest's -rA outcome per node id. */
function pytestOutcomes(dir: string, ids: readonly string[]): Map<string, string> {
  const r = spawnSync("python3", ["-m", "pytest", "-rA", "-p", "no:cacheprovider", "-q", ...ids], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
  });
  const out = new Map<string, string>();
  for (const m of r.stdout.matchAll(/^(PASSED|FAILED|ERROR|SKIPPED) (\S+)/gm)) out.set(m[2]!, m[1]!);
  return out;
}

/** The lines of a function (from its first decorator) named `name` in `text`. */
function block(text: string, name: string): string[] {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => new RegExp(`^\\s*(async )?def ${name}\\(`).test(l));
  let first = at;
  while (first > 0 && /^\s*[@)\]"']|^\s{4,}\S/.test(lines[first - 1]!) && !/^\s*(def|class)\s/.test(lines[first - 1]!)) first--;
  const indent = /^\s*/.exec(lines[at]!)![0].length;
  let last = at + 1;
  while (last < lines.length && (lines[last]!.trim() === "" || /^\s*/.exec(lines[last]!)![0].length > indent)) last++;
  while (lines[last - 1]!.trim() === "") last--;
  return lines.slice(first, last);
}

describe("canaries made of the required tests", () => {
  it("mutants fail and twins pass on a correct implementation, every required test passes under its run id, copies differ by one expected value", async () => {
    const kinds = new Set<string>();
    for (let round = 0; round < 6; round++) {
      const dir = tempDir();
      writeFiles(dir, { ...pkg, "tests/test_shapes.py": testFile });
      const planting = await plantCanaries(dir, "python3", f2p, p2p, pytestRunner);
      const text = readFileSync(join(dir, "tests/test_shapes.py"), "utf8");
      const mutants = planting.canaries.filter((c) => c.expect === "failed");
      const twins = planting.canaries.filter((c) => c.expect === "passed");
      expect(mutants.length, planting.notes.join("\n")).toBeGreaterThan(0);
      expect(twins.length, planting.notes.join("\n")).toBeGreaterThan(0);
      // Copies only of tests that can be copied safely: no mutant of an early return or a raises-only test, no twin of a test that reads its own name.
      for (const c of planting.canaries) expect(c.of).not.toMatch(/test_raises_only|test_early_return|test_named/);
      // No telltale: the copies are named from the file's test words.
      for (const c of planting.canaries)
        expect(c.id).toMatch(/^tests\/test_shapes\.py::(TestLabel::|TestUnit::)?test_[a-z0-9_]+(\[(thin|square)\])?$/);
      const runIds = [...planting.runIds.values()];
      const got = pytestOutcomes(dir, [...runIds, ...planting.canaries.map((c) => c.id)]);
      for (const id of runIds) expect(got.get(id), `${id}\n${text}`).toBe("PASSED");
      for (const c of mutants) expect(got.get(c.id), `${c.id} (mutant of ${c.of})\n${text}`).toBe("FAILED");
      for (const c of twins) expect(got.get(c.id), `${c.id} (twin of ${c.of})\n${text}`).toBe("PASSED");
      for (const c of planting.canaries) {
        const copy = block(text, c.id.split("::").pop()!.replace(/\[.*$/, ""));
        const original = block(text, planting.runIds.get(c.of!)!.split("::").pop()!.replace(/\[.*$/, ""));
        expect(copy.length).toBe(original.length);
        const differing = copy.filter((l, i) => l !== original[i] && !/def test_/.test(l));
        expect(differing.length, `${copy.join("\n")}\n---\n${original.join("\n")}`).toBe(c.expect === "failed" ? 1 : 0);
        kinds.add(`${c.expect}:${c.of!.replace(/\[.*$/, "")}`);
      }
      // The rest of the file is as it was: every original line is still there, in order.
      let at = 0;
      const lines = text.split("\n");
      for (const l of testFile.split("\n")) {
        if (/def test_/.test(l)) continue;
        const next = lines.indexOf(l, at);
        expect(next, l).toBeGreaterThanOrEqual(at);
        at = next;
      }
    }
    expect(kinds.size).toBeGreaterThan(2);
  }, 120_000);

  it("a copy never takes the name of a method that a required test of another file inherits (its subclass would run the mutant)", async () => {
    const files = {
      ...pkg,
      "tests/__init__.py": "",
      "tests/test_base.py":
        "import unittest\n\nfrom shapes import area\n\n\nclass TestBase(unittest.TestCase):\n    def test_area(self):\n        self.assertEqual(area(2, 3), 6)\n",
      // As Python-Markdown's md_in_html tests subclass the raw HTML tests of another module.
      "tests/test_sub.py": "from tests.test_base import TestBase\n\n\nclass TestSub(TestBase):\n    pass\n",
    };
    // The mutant takes the original's name half the time when nothing forbids it: 12 rounds.
    for (let round = 0; round < 12; round++) {
      const dir = tempDir();
      writeFiles(dir, files);
      const planting = await plantCanaries(
        dir,
        "python3",
        ["tests/test_base.py::TestBase::test_area"],
        ["tests/test_sub.py::TestSub::test_area"],
        pytestRunner,
      );
      expect(
        planting.canaries.some((c) => c.file === "tests/test_base.py" && c.expect === "failed"),
        planting.notes.join("\n"),
      ).toBe(true);
      // The original keeps its name, so the subclass inherits the original (run twice to see it pass).
      const text = readFileSync(join(dir, "tests/test_base.py"), "utf8");
      expect(planting.runIds.get("tests/test_base.py::TestBase::test_area"), text).toBe("tests/test_base.py::TestBase::test_area");
      const sub = planting.runIds.get("tests/test_sub.py::TestSub::test_area")!;
      if (round < 2) expect(pytestOutcomes(dir, [sub]).get(sub), text).toBe("PASSED");
    }
  }, 240_000);

  it("no twin of a test that names itself in its body (an expected message quoting the caller's name, read through a stack)", () => {
    // As pyomo's timer test, whose expected output ends "in test_tictoc": its twin, under another name, fails.
    const text =
      "import inspect\n\n\ndef caller():\n    return inspect.stack()[1].function\n\n\n" +
      "def test_tictoc():\n    assert caller().endswith('test_tictoc')\n\n\ndef test_plain():\n    assert caller() == 'test_plain' or True\n\n\n" +
      "def test_sum():\n    assert 1 + 1 == 2\n";
    const request = {
      files: [
        { path: "tests/test_t.py", text, mutate: [], twin: ["test_tictoc", "test_plain", "test_sum"], max_mutants: 0, max_twins: 50 },
      ],
    };
    const r = spawnSync("python3", ["-I", "-S", join(import.meta.dirname, "../../src/testbed/canary-tests.py")], {
      input: JSON.stringify(request),
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    const [out] = JSON.parse(r.stdout) as Array<{ planted: Array<{ kind: string; of: string }> }>;
    expect(out!.planted.filter((p) => p.kind === "twin").map((p) => p.of)).toEqual(["test_sum"]);
  });

  it("the helper mutates every kind of assertion it knows (all copies at once), and each mutant fails", () => {
    const keys = (ids: string[]) => ids.map((id) => id.split("::").slice(1).join("::").replace(/\[.*$/, ""));
    const request = {
      files: [{ path: "tests/test_shapes.py", text: testFile, mutate: keys(f2p), twin: keys(p2p), max_mutants: 50, max_twins: 50 }],
    };
    const r = spawnSync("python3", ["-I", "-S", join(import.meta.dirname, "../../src/testbed/canary-tests.py")], {
      input: JSON.stringify(request),
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    const [out] = JSON.parse(r.stdout) as Array<{
      text: string;
      planted: Array<{ kind: string; of: string; as: string; original_as: string }>;
    }>;
    const mutated = out!.planted
      .filter((p) => p.kind === "mutant")
      .map((p) => p.of)
      .sort();
    // Literal changes (ints, strings, lists), == to !=, is not to is, not removed, assertEqual's literal, assertTrue to assertFalse; module functions, parametrized, async, methods.
    expect(mutated).toEqual([
      "TestLabel::test_label_upper",
      "TestUnit::test_area_unit",
      "TestUnit::test_label_true",
      "test_area_basic",
      "test_area_cases",
      "test_async_area",
      "test_label_none",
      "test_parts_split",
    ]);
    expect(
      out!.planted
        .filter((p) => p.kind === "twin")
        .map((p) => p.of)
        .sort(),
    ).toEqual(["TestLabel::test_label_empty", "test_with_fixture"]);
    const dir = tempDir();
    writeFiles(dir, { ...pkg, "tests/test_shapes.py": out!.text });
    const ids = (k: string) => (k === "test_area_cases" ? ["[thin]", "[square]"] : [""]);
    const got = pytestOutcomes(dir, []);
    for (const p of out!.planted) {
      for (const params of ids(p.of)) {
        expect(got.get(`tests/test_shapes.py::${p.original_as}${params}`), p.original_as).toBe("PASSED");
        expect(got.get(`tests/test_shapes.py::${p.as}${params}`), `${p.as}\n${out!.text}`).toBe(p.kind === "mutant" ? "FAILED" : "PASSED");
      }
    }
  }, 60_000);

  it("falls back to constant canaries for a file with nothing to copy, and to constants only when the helper cannot run", async () => {
    const dir = tempDir();
    const only = [
      "import pytest",
      "from shapes import label",
      "",
      "",
      "def test_raises():",
      "    with pytest.raises(AttributeError):",
      "        label(None)",
      "",
    ].join("\n");
    writeFiles(dir, { ...pkg, "tests/test_only.py": only });
    const planting = await plantCanaries(dir, "python3", ["tests/test_only.py::test_raises"], [], pytestRunner);
    expect(planting.canaries.map((c) => [c.expect, c.of])).toEqual(
      expect.arrayContaining([
        ["failed", undefined],
        ["passed", undefined],
      ]),
    );
    expect(planting.notes.join("\n")).toMatch(/0 mutant\(s\), 0 twin\(s\), constant must-fail and must-pass/);
    const got = pytestOutcomes(dir, ["tests/test_only.py::test_raises", ...planting.canaries.map((c) => c.id)]);
    for (const c of planting.canaries) expect(got.get(c.id)).toBe(c.expect.toUpperCase());

    const dir2 = tempDir();
    writeFiles(dir2, { ...pkg, "tests/test_shapes.py": testFile });
    const fallback = await plantCanaries(dir2, join(dir2, "no-python"), f2p, p2p, pytestRunner);
    expect(fallback.notes[0]).toMatch(/could not be made .*constant canaries only/);
    expect(fallback.canaries.every((c) => c.of === undefined)).toBe(true);
    expect([...fallback.runIds.entries()].every(([a, b]) => a === b)).toBe(true);
  }, 60_000);
});
