import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { calcFiles, calcTestsPatchFiles, defaultPytest, diffAgainst, fixedOps, tempDir, writeCalcDataset } from "../verify/fixture.js";

const cache = tempDir("switch-swe-cache-");
const scratch = tempDir();
const env = { SWITCH_SWE_CACHE: cache };
afterAll(() => {
  rmSync(cache, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** The reference adds calc/extra.py; the test patch adds a module that imports it (cannot be collected without it). */
const extraSource = "def triple(x):\n    return 3 * x\n";
const newTestModule = "from calc.extra import triple\n\n\ndef test_triple():\n    assert triple(2) == 6\n";
const stage = diffAgainst(calcFiles, (d) => {
  writeFileSync(join(d, "calc", "ops.py"), fixedOps);
  writeFileSync(join(d, "calc", "extra.py"), extraSource);
});
const testsPatch = diffAgainst(calcFiles, (d) => {
  for (const [f, text] of Object.entries(calcTestsPatchFiles)) writeFileSync(join(d, f), text);
  writeFileSync(join(d, "tests", "test_extra.py"), newTestModule);
});
const f2p = ["tests/test_extra.py::test_triple", "tests/test_ops.py::test_add"];
const p2p = ["tests/test_ops.py::test_mul"];

describe("tasks qualify on a test patch whose new module cannot be collected without the reference", () => {
  it("keeps running the other files: only the right tests are F2P, the untouched ones stay P2P", () => {
    const root = writeCalcDataset(join(scratch, "collect"), { tasks: [{ id: "extra", f2p, p2p, stage, testsPatch }] });
    const r = cli(["tasks", "qualify", root, "--runs", "1", "--json"], { env });
    expect(r.stderr).toBe("");
    const [report] = JSON.parse(r.stdout) as Array<{
      qualified: boolean;
      observed: { fail_to_pass: string[]; pass_to_pass: number };
      problems: string[];
    }>;
    expect(report!.problems).toEqual([]);
    expect(report!.qualified).toBe(true);
    expect(report!.observed.fail_to_pass).toContain("tests/test_extra.py::test_triple");
    expect(report!.observed.fail_to_pass).not.toContain("tests/test_ops.py::test_mul");
    expect(report!.observed.pass_to_pass).toBe(1);
    expect(r.code).toBe(0);
  });

  it("does not believe a run that stopped at collection, and --write leaves the task as it was", () => {
    // A test command that clears PYTEST_ADDOPTS behaves like pytest without --continue-on-collection-errors.
    const root = writeCalcDataset(join(scratch, "interrupted"), {
      testCommand: `PYTEST_ADDOPTS= ${defaultPytest}`,
      tasks: [{ id: "extra", f2p, p2p, stage, testsPatch }],
    });
    const taskFile = join(root, "tasks", "extra", "task.json");
    const before = readFileSync(taskFile, "utf8");
    const r = cli(["tasks", "qualify", root, "--runs", "1", "--write"], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("NOT QUALIFIED");
    expect(r.stdout).toMatch(
      /problem: suite run 1 without the reference: pytest stopped at collection \(Interrupted: 1 error during collection\)/,
    );
    expect(readFileSync(taskFile, "utf8")).toBe(before);
  });
});

describe("tasks qualify --suite touched (for suites that take hours)", () => {
  it("runs only the modules the task's tests touch or declare: a module elsewhere that kills the run spoils only the whole suite", () => {
    const root = writeCalcDataset(join(scratch, "touched"), {
      extraRepoFiles: { "tests/test_elsewhere.py": "import os\n\nos._exit(3)\n" },
      tasks: [{ id: "extra", f2p, p2p, stage, testsPatch }],
    });
    const whole = cli(["tasks", "qualify", root, "--runs", "1"], { env });
    expect(whole.code).toBe(1);
    expect(whole.stdout).toContain("NOT QUALIFIED");
    const touched = cli(["tasks", "qualify", root, "--runs", "1", "--suite", "touched", "--json"], { env });
    expect(touched.code).toBe(0);
    const [report] = JSON.parse(touched.stdout) as Array<{
      qualified: boolean;
      observed: { fail_to_pass: string[]; pass_to_pass: number };
      runs: Array<{ tests: number }>;
    }>;
    expect(report!.qualified).toBe(true);
    expect(report!.observed.fail_to_pass).toEqual(expect.arrayContaining(f2p));
    // test_ops.py's 5 tests (test_extra.py cannot be imported without the reference), then 6.
    expect(report!.runs.map((r) => r.tests)).toEqual([5, 6]);
  });
});

describe("tasks qualify --suite touched when the task's only test module cannot be imported without the reference", () => {
  // As sympy's mathematica-parser task: its tests patch adds tests only, in a module of their own.
  it("counts the tests of that module as not collected (failing) without the reference, not the run as empty", () => {
    const stageOnly = diffAgainst(calcFiles, (d) => writeFileSync(join(d, "calc", "extra.py"), extraSource));
    const moduleOnly = diffAgainst(calcFiles, (d) => writeFileSync(join(d, "tests", "test_extra.py"), newTestModule));
    const root = writeCalcDataset(join(scratch, "module-only"), {
      tasks: [{ id: "extra", f2p: ["tests/test_extra.py::test_triple"], p2p: [], stage: stageOnly, testsPatch: moduleOnly }],
    });
    const r = cli(["tasks", "qualify", root, "--runs", "1", "--suite", "touched", "--json"], { env });
    const [report] = JSON.parse(r.stdout) as Array<{
      qualified: boolean;
      problems: string[];
      observed: { fail_to_pass: string[]; pass_to_pass: number };
      runs: Array<{ tests: number }>;
    }>;
    expect(report!.problems).toEqual([]);
    expect(report!.qualified).toBe(true);
    expect(report!.observed.fail_to_pass).toEqual(["tests/test_extra.py::test_triple"]);
    expect(report!.runs.map((x) => x.tests)).toEqual([0, 1]);
    expect(r.code).toBe(0);
  });
});

describe("time-dependent parametrized ids", () => {
  const stampTests =
    "import datetime\nimport pytest\nfrom calc.ops import add\n\n\n" +
    "@pytest.mark.parametrize('stamp', [datetime.datetime.now().isoformat()])\ndef test_stamp(stamp):\n    assert add(1, 1) == 2\n\n\n" +
    "def test_add():\n    assert add(2, 3) == 5\n";
  const stampPatch = diffAgainst(calcFiles, (d) => writeFileSync(join(d, "tests", "test_stamp.py"), stampTests));

  it("qualify drops them (they change between runs) and --write never declares them", () => {
    const root = writeCalcDataset(join(scratch, "stamp"), {
      tasks: [{ id: "stamp", f2p: ["tests/test_stamp.py::test_add"], p2p, testsPatch: stampPatch }],
    });
    const r = cli(["tasks", "qualify", root, "--runs", "2", "--write"], { env });
    expect(r.stdout).toMatch(
      /difference: dropped 4 parametrized id\(s\) that change between runs \(time- or environment-dependent\): tests\/test_stamp\.py::test_stamp\[/,
    );
    expect(r.code).toBe(0);
    const task = JSON.parse(readFileSync(join(root, "tasks", "stamp", "task.json"), "utf8")) as { verifier: { fail_to_pass: string[] } };
    expect(task.verifier.fail_to_pass).toEqual(["tests/test_stamp.py::test_add"]);
  });

  it("validate warns on declared ids that look generated, without failing; not on a date or UUID the test module spells out", () => {
    // sqlparse's and click's tests parametrize over literal dates and UUIDs: the same on every run.
    const literal =
      "\n\n@pytest.mark.parametrize('day', ['2024-01-31', 'ba122011-349f-423b-873b-9d6a79c688ab'])\ndef test_day(day):\n    assert add(1, 1) == 2\n";
    const patch = diffAgainst(calcFiles, (d) => writeFileSync(join(d, "tests", "test_stamp.py"), stampTests + literal));
    const declared = [
      "tests/test_stamp.py::test_add",
      "tests/test_stamp.py::test_stamp[2026-12-01T03:40:01.123456]",
      "tests/test_stamp.py::test_day[2024-01-31]",
      "tests/test_stamp.py::test_day[ba122011-349f-423b-873b-9d6a79c688ab]",
    ];
    const root = writeCalcDataset(join(scratch, "stamp-declared"), { tasks: [{ id: "stamp", f2p: declared, p2p, testsPatch: patch }] });
    const r = cli(["tasks", "validate", root], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `warning: ${join(root, "tasks", "stamp", "task.json")}: verifier.fail_to_pass: tests/test_stamp.py::test_stamp[2026-12-01T03:40:01.123456] looks generated (its parameters hold a date): it will differ on the next run; run \`tasks qualify --write\` to drop it\n`,
    );
  });
});

describe("a collection error below module level (one class or function of a module)", () => {
  // Python-Markdown's suite: one module turns warnings into errors at import (tests/test_legacy.py), a later
  // one imports unittest's TestSuite, which pytest then fails to collect as a test class. pytest reports
  // that one class as an error case, in the JUnit report and on its own hook, not the module.
  const strict = "import warnings\nwarnings.simplefilter('error')\n\n\ndef test_strict():\n    pass\n";
  const badTests = "from unittest import TestSuite\nfrom calc.ops import add\n\n\ndef test_add_more():\n    assert add(2, 2) == 4\n";
  const badPatch = diffAgainst(calcFiles, (d) => {
    for (const [f, text] of Object.entries(calcTestsPatchFiles)) writeFileSync(join(d, f), text);
    writeFileSync(join(d, "tests", "test_a_strict.py"), strict);
    writeFileSync(join(d, "tests", "test_bad.py"), badTests);
  });

  it("is the same error in both channels: the runs are trusted, the broken item is neither F2P nor P2P", () => {
    const root = writeCalcDataset(join(scratch, "item-error"), {
      tasks: [{ id: "item", f2p: ["tests/test_ops.py::test_add"], p2p, stage, testsPatch: badPatch }],
    });
    const r = cli(["tasks", "qualify", root, "--runs", "1", "--json"], { env });
    const [report] = JSON.parse(r.stdout) as Array<{
      qualified: boolean;
      observed: { fail_to_pass: string[]; pass_to_pass: number };
      problems: string[];
    }>;
    expect(report!.problems).toEqual([]);
    expect(report!.observed.fail_to_pass).toContain("tests/test_ops.py::test_add");
    expect(report!.observed.fail_to_pass).not.toContain("tests/test_bad.py::TestSuite");
    expect(report!.qualified).toBe(true);
    expect(r.code).toBe(0);
  });
});
