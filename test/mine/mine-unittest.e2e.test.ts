import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { tempDir } from "../verify/fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const root = tempDir("switch-swe-mine-unittest-");
const { repo, init, commit } = gitHistory(root, "calcu");

const testops = (methods: string[]) =>
  ["import unittest", "", "from calc import ops", "", "", "class TestOps(unittest.TestCase):", ...methods.flatMap((m) => [m, ""])].join(
    "\n",
  );
const testAdd = "    def test_add(self):\n        self.assertEqual(ops.add(2, 3), 5)\n";
const testSub =
  "    def test_sub(self):\n        for a, b in [(3, 1), (1, 3)]:\n            with self.subTest(a=a, b=b):\n                self.assertEqual(ops.sub(a, b), a - b)\n";
const testMul = "    def test_mul(self):\n        self.assertEqual(ops.mul(2, 3), 6)\n";

/**
 * A project whose tests only unittest runs: its test module is named by unittest's pattern
 * (`tests/testops.py`, no module by pytest's naming) and its conftest.py stops pytest. One chain of
 * two commits adds subtraction, then multiplication, each with its test.
 */
beforeAll(() => {
  init();
  commit("Initial layout", {
    "calc/__init__.py": "",
    "calc/ops.py": "def add(a, b):\n    return a + b\n",
    "tests/__init__.py": "",
    "tests/conftest.py": 'raise RuntimeError("this project runs its tests with python -m unittest")\n',
    "tests/testops.py": testops([testAdd]),
  });
  commit("ops: subtraction", {
    "calc/ops.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    "tests/testops.py": testops([testAdd, testSub]),
  });
  commit("ops: multiplication", {
    "calc/ops.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
    "tests/testops.py": testops([testAdd, testSub, testMul]),
  });
});

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));

describe.skipIf(missingTool)("tasks mine --test-runner unittest", () => {
  it("records the runner in the manifest and the dataset, and maps unittest's ids to the stages", { timeout: 300_000 }, () => {
    const env = { SWITCH_SWE_CACHE: join(root, "cache") };
    const out = join(root, "mined");
    const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "1", "--suite", "touched", "--test-runner", "unittest"], { env });
    expect(r.stdout).toMatch(/1 candidate\(s\): 1 mined, 0 rejected; /);
    const manifest = readJson(join(out, "manifest.json"));
    expect(manifest.repos.calcu.environment).toEqual({ test_command: "python3 -m unittest -v {tests}", test_runner: "unittest" });
    const [task] = manifest.tasks;
    expect(task.stages.map((s: { tests: string[] }) => s.tests)).toEqual([
      ["tests/testops.py::TestOps::test_sub"],
      ["tests/testops.py::TestOps::test_mul"],
    ]);
    expect(task.verifier.pass_to_pass).toEqual(["tests/testops.py::TestOps::test_add"]);
    // The materialized dataset names the runner too, with the same ids: its verification runs unittest.
    expect(readJson(join(out, "dataset.json")).repos.calcu.environment.test_runner).toBe("unittest");
    expect(readJson(join(out, "tasks", task.id, "task.json")).verifier.fail_to_pass).toEqual([
      "tests/testops.py::TestOps::test_sub",
      "tests/testops.py::TestOps::test_mul",
    ]);
    expect(readJson(join(out, "mine-report.json")).settings.test_runner).toBe("unittest");
    // Qualification of the mined dataset runs the same runner and observes the same ids.
    const q = cli(["tasks", "qualify", out, "--runs", "1", "--suite", "touched"], { env });
    expect(q.code).toBe(0);
    // A resumed run must judge with the same runner.
    const again = cli(["tasks", "mine", repo, "--out", out, "--runs", "1", "--suite", "touched"], { env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${join(out, "mine-report.json")}: settings.test_runner: this run used "unittest", not "pytest"`);
  });

  it("an unknown runner is refused in one line naming the runners, exit 2", () => {
    const r = cli(["tasks", "mine", repo, "--out", join(root, "nose"), "--test-runner", "nose"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      'switch-swe tasks mine: --test-runner must be one of pytest, unittest, got "nose" (see switch-swe tasks mine --help)',
    ]);
  });
});
