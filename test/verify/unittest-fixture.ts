import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { diffAgainst, fixedOps, writeFiles } from "./fixture.js";

/**
 * A small repository whose tests run only under unittest (TestCase classes, subtests, no pytest
 * anywhere), with a runner script of its own that wraps unittest (as Django's tests/runtests.py does).
 */
export const unittestRepoFiles: Record<string, string> = {
  "calc/__init__.py": "",
  "calc/ops.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
  "tests/__init__.py": "",
  "tests/test_ops.py":
    "import unittest\n\nfrom calc.ops import mul\n\n\nclass TestMul(unittest.TestCase):\n    def test_mul(self):\n        self.assertEqual(mul(2, 3), 6)\n",
  // The project's own runner: labels relative to its directory, exit status from the result.
  "runtests.py": [
    "import sys",
    "import unittest",
    "",
    "",
    "def main(labels):",
    "    loader = unittest.TestLoader()",
    '    suite = loader.loadTestsFromNames(labels) if labels else loader.discover("tests", top_level_dir=".")',
    "    result = unittest.TextTestRunner(verbosity=2).run(suite)",
    "    sys.exit(0 if result.wasSuccessful() else 1)",
    "",
    "",
    'if __name__ == "__main__":',
    '    main([a for a in sys.argv[1:] if not a.startswith("-")])',
    "",
  ].join("\n"),
};

export const unittestHeldOutTests = [
  "import unittest",
  "",
  "from calc.ops import add, mul",
  "",
  "",
  "class TestMul(unittest.TestCase):",
  "    def test_mul(self):",
  "        self.assertEqual(mul(2, 3), 6)",
  "",
  "",
  "class TestAdd(unittest.TestCase):",
  "    def test_add(self):",
  "        self.assertEqual(add(2, 3), 5)",
  "",
  "    def test_neg(self):",
  "        self.assertEqual(add(-1, -1), -2)",
  "",
  "    def test_many(self):",
  "        for a, b in [(1, 2), (3, 4)]:",
  "            with self.subTest(a=a, b=b):",
  "                self.assertEqual(add(a, b), a + b)",
  "",
].join("\n");

export const unittestF2P = [
  "tests/test_ops.py::TestAdd::test_add",
  "tests/test_ops.py::TestAdd::test_many",
  "tests/test_ops.py::TestAdd::test_neg",
];
export const unittestP2P = ["tests/test_ops.py::TestMul::test_mul"];

/** `python3 -m unittest` (our launcher's own loading) or the project's script. */
export const unittestCommands = { module: "python3 -m unittest -v {tests}", script: "python3 runtests.py -v {tests}" } as const;

/** Writes a dataset of the unittest-only repository (runner `runner`, default unittest) with one task; returns its root. */
export function writeUnittestDataset(root: string, command: string, runner = "unittest"): string {
  writeFiles(join(root, "repos", "calcu"), unittestRepoFiles);
  const environment = { test_command: command, test_runner: runner };
  writeFileSync(
    join(root, "dataset.json"),
    JSON.stringify({ name: "calcu-fixture", version: "1", repos: { calcu: { path: "repos/calcu", environment } } }, null, 2),
  );
  const dir = join(root, "tasks", "fix-add");
  mkdirSync(dir, { recursive: true });
  const verifier = { fail_to_pass: unittestF2P, pass_to_pass: unittestP2P };
  writeFileSync(
    join(dir, "task.json"),
    JSON.stringify({ id: "fix-add", repo: "calcu", base: "HEAD", requests: [{ text: "Make add() add." }], verifier }, null, 2),
  );
  writeFileSync(
    join(dir, "stage-1.patch"),
    diffAgainst(unittestRepoFiles, (d) => writeFiles(d, { "calc/ops.py": fixedOps })),
  );
  writeFileSync(
    join(dir, "tests.patch"),
    diffAgainst(unittestRepoFiles, (d) => writeFiles(d, { "tests/test_ops.py": unittestHeldOutTests })),
  );
  return root;
}

/** An artifact against the unittest-only repository. */
export const unittestArtifact = (change: (dir: string) => void) => diffAgainst(unittestRepoFiles, change);
