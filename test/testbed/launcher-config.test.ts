import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { testEnv } from "../../src/testbed/scrubbed-env.js";
import { prepareLauncher } from "../../src/testbed/launcher-files.js";
import { locateInifile, pytestRunner } from "../../src/testbed/pytest-runner.js";
import { runTests, untrustedRunReason } from "../../src/testbed/test-run.js";
import { tempDir, writeFiles } from "../verify/fixture.js";

/**
 * What a repository's own pytest configuration legitimately does must run under the launcher as under
 * `python -m pytest`, and what pytest refuses must be reported in pytest's words (issue 28).
 */

const root = tempDir();
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function runIn(
  name: string,
  files: Record<string, string>,
  template = "python3 -m pytest -p no:cacheprovider --junitxml={junit} {tests}",
  testIds: readonly string[] | null = null,
) {
  const checkout = join(root, name, "checkout");
  const scratch = join(root, name, "scratch");
  mkdirSync(checkout, { recursive: true });
  writeFiles(checkout, files);
  for (const d of ["home", "tmp"]) mkdirSync(join(scratch, d), { recursive: true });
  const launcher = prepareLauncher(join(scratch, "runner"), pytestRunner, await locateInifile("python3", checkout));
  return runTests({
    checkout,
    template,
    testIds,
    junitPath: join(scratch, "report", "report.xml"),
    env: testEnv({ home: join(scratch, "home"), tmp: join(scratch, "tmp") }),
    timeoutMs: 120_000,
    runner: pytestRunner,
    launcher,
  });
}

describe("the launcher under the repository's pytest configuration", () => {
  // hypothesis's pattern: pytester named in addopts (it loads pytester_assertions under assertion
  // rewriting), every warning an error. Pre-imported by the launcher, pytest warned it could not
  // rewrite the module and the error ended the process before the session.
  it("runs a suite whose configuration loads pytester with warnings as errors", async () => {
    const run = await runIn("pytester", {
      "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-p pytester"\nfilterwarnings = ["error"]\n',
      "tests/test_a.py": "def test_plain():\n    assert 1 + 1 == 2\n\n\ndef test_fixture(pytester):\n    assert pytester.path.is_dir()\n",
    });
    expect(run.stderr).not.toMatch(/cannot be rewritten/);
    expect(untrustedRunReason(run)).toBeNull();
    expect(run.stream?.exitStatus).toBe(0);
    expect([...run.cases]).toEqual([
      ["tests/test_a.py::test_plain", "passed"],
      ["tests/test_a.py::test_fixture", "passed"],
    ]);
  });

  it("a conftest pytest refuses before its session is reported in pytest's own words", async () => {
    const run = await runIn("refused", {
      "conftest.py": "def pytest_configure(bogus):\n    pass\n",
      "tests/test_a.py": "def test_plain():\n    pass\n",
    });
    expect(run.stream?.exitStatus).toBeNull();
    expect(run.stream?.crash).toMatch(/^pluggy\._manager\.PluginValidationError: Plugin .*conftest\.py' for hook 'pytest_configure'/);
    expect(untrustedRunReason(run)).toMatch(
      /^pytest stopped with an error before its session finished: pluggy\._manager\.PluginValidationError: .*\{'bogus'\} are declared in the hookimpl/s,
    );
  });

  // The environment is sealed; outside the sandbox (mining, qualification) a bytecode file pytest's
  // rewriter wrote there broke the seal and the environment was rebuilt for every candidate.
  it("writes no bytecode beside a plugin it rewrites outside the checkout (the environment stays as sealed)", async () => {
    const plugins = join(root, "env-plugins");
    writeFiles(plugins, { "envplugin.py": "import pytest\n\n\n@pytest.fixture\ndef answer():\n    return 42\n" });
    const run = await runIn(
      "bytecode",
      { "tests/test_a.py": "def test_answer(answer):\n    assert answer == 42\n" },
      `PYTHONPATH=${plugins} python3 -m pytest -p envplugin -p no:cacheprovider --junitxml={junit} {tests}`,
    );
    expect(untrustedRunReason(run)).toBeNull();
    expect([...run.cases]).toEqual([["tests/test_a.py::test_answer", "passed"]]);
    expect(existsSync(join(plugins, "__pycache__"))).toBe(false);
  });

  // IPython's completer tests share one shell, each leaning on what earlier ones left: named in the
  // verifier's order, 13 of 256 failed that pass in a whole-module run (the order mining and
  // qualification see). Named tests now run in the order a whole-module run gives them.
  it("runs tests named by id in their modules' collection order, not the command line's", async () => {
    const files = {
      "tests/test_b.py": [
        "import unittest",
        "seen = []",
        "",
        "def test_first():",
        "    seen.append('first')",
        "",
        "class TestCase(unittest.TestCase):",
        "    def test_z_last(self):",
        "        self.assertEqual(seen, ['first', 'a', 'm'])",
        "    def test_a(self):",
        "        seen.append('a')",
        "    def test_m(self):",
        "        self.assertEqual(seen, ['first', 'a'])",
        "        seen.append('m')",
        "",
      ].join("\n"),
      "tests/test_a.py":
        "import pytest\norder = []\n\n@pytest.mark.parametrize('n', [3, 1, 2])\ndef test_case(n):\n    order.append(n)\n\ndef test_after():\n    assert order == [3, 1, 2]\n",
    };
    const ids = [
      "tests/test_b.py::TestCase::test_z_last",
      "tests/test_b.py::TestCase::test_m",
      "tests/test_a.py::test_after",
      "tests/test_b.py::TestCase::test_a",
      "tests/test_a.py::test_case[2]",
      "tests/test_b.py::test_first",
      "tests/test_a.py::test_case[1]",
      "tests/test_a.py::test_case[3]",
    ];
    const run = await runIn("order", files, undefined, ids);
    expect(untrustedRunReason(run)).toBeNull();
    expect([...run.cases]).toEqual([
      ["tests/test_a.py::test_case[3]", "passed"],
      ["tests/test_a.py::test_case[1]", "passed"],
      ["tests/test_a.py::test_case[2]", "passed"],
      ["tests/test_a.py::test_after", "passed"],
      ["tests/test_b.py::test_first", "passed"],
      ["tests/test_b.py::TestCase::test_a", "passed"],
      ["tests/test_b.py::TestCase::test_m", "passed"],
      ["tests/test_b.py::TestCase::test_z_last", "passed"],
    ]);
  });
});
