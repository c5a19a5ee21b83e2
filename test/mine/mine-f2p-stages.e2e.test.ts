import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { git, tempDir } from "../verify/fixture.js";

const root = tempDir("switch-swe-mine-f2p-");
const env = { SWITCH_SWE_CACHE: join(root, "cache") };
const { repo, init, commit } = gitHistory(root, "counts");
const out = join(root, "mined");

const core = (...defs: string[]) => ({ "counts/core.py": `${defs.join("\n\n")}\n` });
const one = "def one():\n    return 1";
const two = "def two():\n    return 2";
const three = "def three():\n    return 3";

/**
 * One merged branch of three steps. Step 1 fixes `one` and adds a test of `two`, which only step 2
 * adds (read as an attribute: its module imports). Step 2 adds `two` and two test modules: one tests
 * `one` alone; the other imports `one` and `two` together, so its test of `one` cannot be collected
 * until step 2 although its own code uses only `one`. Step 3 adds `three` and its test.
 */
beforeAll(() => {
  init();
  commit("Initial layout", { "counts/__init__.py": "", ...core("def one():\n    return 0") });
  git(repo, "checkout", "-q", "-b", "counting");
  commit("Count from one", {
    ...core(one),
    "tests/test_later.py": "from counts import core\n\n\ndef test_two_later():\n    assert core.two() == 2\n",
  });
  commit("Add two", {
    ...core(one, two),
    "tests/test_one.py": "from counts.core import one\n\n\ndef test_one():\n    assert one() == 1\n",
    "tests/test_pair.py":
      "from counts.core import one, two\n\n\ndef test_one_alone():\n    assert one() == 1\n\n\ndef test_two():\n    assert two() == 2\n",
  });
  commit("Add three", {
    ...core(one, two, three),
    "tests/test_three.py": "from counts.core import three\n\n\ndef test_three():\n    assert three() == 3\n",
  });
  git(repo, "checkout", "-q", "main");
  git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'counting'", "counting");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("tasks mine: each F2P test on the stage from which it passes", () => {
  it(
    "maps by outcome, not by the commit that brings the test file, and reports tests mapped where their module first imports",
    { timeout: 600_000 },
    () => {
      const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "1"], { env });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/1 candidate\(s\): 1 mined, 0 rejected/);
      const [task] = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).tasks;
      expect(task.stages.map((s: { tests: string[] }) => s.tests)).toEqual([
        // Its file arrives with step 2, but it passes from stage 1.
        ["tests/test_one.py::test_one"],
        // Its file arrives with step 1, but it passes from stage 2; the pair's module imports from stage 2.
        ["tests/test_later.py::test_two_later", "tests/test_pair.py::test_one_alone", "tests/test_pair.py::test_two"],
        ["tests/test_three.py::test_three"],
      ]);
      const [mined] = JSON.parse(readFileSync(join(out, "mine-report.json"), "utf8")).mined;
      // Only the test whose own code does not use the name its module could not import.
      expect(mined.import_gated).toEqual([
        {
          test: "tests/test_pair.py::test_one_alone",
          stage: 2,
          cause: expect.stringContaining("cannot import name 'two' from 'counts.core'"),
        },
      ]);
      expect(r.stderr).toMatch(
        /warning: counts-\w+: 1 F2P test\(s\) of tests\/test_pair\.py mapped to stage 2, where their module first imports \(after stage 1: ImportError: cannot import name 'two' from 'counts\.core'/,
      );
      expect(cli(["tasks", "validate", out], { env }).code).toBe(0);
    },
  );
});
