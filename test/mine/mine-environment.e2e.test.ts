import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { git, tempDir } from "../verify/fixture.js";

const root = tempDir("switch-swe-mine-env-");
const env = { SWITCH_SWE_CACHE: join(root, "cache") };
const { repo, init, commit } = gitHistory(root, "eras");
const out = join(root, "mined");

// Code of an older Python: `collections.MutableSet` left for `collections.abc` in 3.10.
const oldImport = "from collections import MutableSet\n";

function branch(name: string, steps: Array<[string, Record<string, string>]>): void {
  git(repo, "checkout", "-q", "-b", name);
  for (const [message, files] of steps) commit(message, files);
  git(repo, "checkout", "-q", "main");
  git(repo, "merge", "-q", "--no-ff", "-m", `Merge branch '${name}'`, name);
}

/**
 * Two merged branches of two steps each. `alpha` cannot be imported on this Python in any state: its
 * tests are new, so each state's run collects nothing of them. `beta` cannot be imported at the base
 * (its old test module is uncollectable there); its first step makes it importable and adds a function
 * whose new test then passes, so only the base's failure makes that test "fail before the stages".
 */
beforeAll(() => {
  init();
  commit("Initial layout", {
    "alpha/__init__.py": `${oldImport}\n\ndef one():\n    return 1\n`,
    "beta/__init__.py": `${oldImport}\n\ndef old():\n    return 0\n`,
    "tests/test_beta.py": "from beta import old\n\n\ndef test_old():\n    assert old() == 0\n",
  });
  branch("alpha-two", [
    [
      "Add two",
      {
        "alpha/__init__.py": `${oldImport}\n\ndef one():\n    return 1\n\n\ndef two():\n    return 2\n`,
        "tests/test_alpha.py": "from alpha import two\n\n\ndef test_two():\n    assert two() == 2\n",
      },
    ],
    [
      "Add three",
      { "alpha/__init__.py": `${oldImport}\n\ndef one():\n    return 1\n\n\ndef two():\n    return 2\n\n\ndef three():\n    return 3\n` },
    ],
  ]);
  branch("beta-new", [
    [
      "Add new",
      {
        "beta/__init__.py": "def old():\n    return 0\n\n\ndef new():\n    return 1\n",
        "tests/test_beta.py":
          "from beta import new, old\n\n\ndef test_old():\n    assert old() == 0\n\n\ndef test_new():\n    assert new() == 1\n",
      },
    ],
    ["Add newer", { "beta/__init__.py": "def old():\n    return 0\n\n\ndef new():\n    return 1\n\n\ndef newer():\n    return 2\n" }],
  ]);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("tasks mine: environment failures and broken bases", () => {
  it(
    "says an environment failure is one, in pytest's full words, and refuses a base that cannot be collected",
    { timeout: 600_000 },
    () => {
      const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "1"], { env });
      // Nothing mined: exit 1.
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/2 candidate\(s\): 0 mined, 2 rejected \(1 environment, 1 base cannot be collected\)/);
      // The console gives the interpreter's whole message and where it broke, not "no test fails before the stages".
      expect(r.stderr).toMatch(
        /rejected merge \S+ of branch alpha-two: environment \(the tests cannot be loaded in any state: tests\/test_alpha\.py - ImportError: cannot import name 'MutableSet' from 'collections' \(\/\S+\/collections\/__init__\.py\) \(at alpha\/__init__\.py:1\)\)/,
      );
      expect(r.stderr).toMatch(
        /rejected merge \S+ of branch beta-new: base cannot be collected \(at the base as shipped \(without the tests patch\), tests\/test_beta\.py cannot be collected: ImportError: cannot import name 'MutableSet' from 'collections'/,
      );
      expect(r.stderr).not.toContain("no F2P");

      const report = JSON.parse(readFileSync(join(out, "mine-report.json"), "utf8"));
      expect(report.rejected_by_reason).toEqual({ environment: 1, "base cannot be collected": 1 });
      const [alpha, beta] = report.rejected;
      expect(alpha).toMatchObject({
        reason: "environment",
        test_runs: 3,
        failing_modules: [
          { module: "tests/test_alpha.py", reason: expect.stringContaining("cannot import name 'MutableSet' from 'collections'") },
        ],
      });
      // One run of the base with the tests patch, one without it: the stages never ran.
      expect(beta).toMatchObject({ reason: "base cannot be collected", test_runs: 2 });
      expect(beta.detail).toContain("(at beta/__init__.py:1)");
      expect(JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).tasks).toEqual([]);
    },
  );
});
