import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset, taskById } from "../../src/dataset/load.js";
import { qualifyTask } from "../../src/qualify/qualify-task.js";
import { verifyArtifact } from "../../src/verify/verify-artifact.js";
import { skipWithout } from "../helpers/tools.js";
import { diffAgainst, fixedOps, tempDir, writeFiles } from "./fixture.js";
import {
  unittestArtifact,
  unittestCommands,
  unittestF2P,
  unittestHeldOutTests,
  unittestP2P,
  unittestRepoFiles,
  writeUnittestDataset,
} from "./unittest-fixture.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const cache = tempDir("switch-swe-cache-");
beforeAll(() => {
  process.env.SWITCH_SWE_CACHE = cache;
});
afterAll(() => rmSync(cache, { recursive: true, force: true }));

/** Verifies `text` against the unittest-only repository's task, its tests started by `command` (or in the dataset at `root`). */
async function verify(command: string, text: string | null, root = writeUnittestDataset(tempDir(), command)) {
  const dataset = loadDataset(root);
  const task = taskById(dataset).get("fix-add")!;
  const work = tempDir();
  const logFile = join(work, "verify.log");
  const v = await verifyArtifact({
    dataset,
    task,
    artifactText: text === null ? null : text === "oracle" ? task.stagePatches[0]! : text,
    workRoot: join(work, "w"),
    logFile,
  });
  return { v, log: readFileSync(logFile, "utf8") };
}

const allPassed = Object.fromEntries([...unittestF2P, ...unittestP2P].map((id) => [id, "passed"]));

describe.skipIf(missingTool)("a unittest-only repository, verified through our unittest launcher", () => {
  for (const [form, command] of Object.entries(unittestCommands)) {
    it(`${form} (${command}): the reference resolves with canaries planted and trusted; no fix does not`, async () => {
      const { v, log } = await verify(command, "oracle");
      expect(log).toContain(form === "module" ? "-I " : "--script runtests.py");
      expect(v.result_source).toBe("junit");
      expect(v.tests, log).toEqual(allPassed);
      expect(v.resolved).toBe(true);
      expect(v.canaries?.trusted).toBe(true);
      expect(v.canaries?.tests.some((t) => t.expected === "failed" && t.reported === "failed")).toBe(true);
      expect(v.canaries?.tests.some((t) => t.expected === "passed" && t.reported === "passed")).toBe(true);

      const nop = await verify(command, "");
      expect(nop.v.resolved).toBe(false);
      expect(nop.v.infra_fault).toBe(false);
      expect(nop.v.tests).toMatchObject({
        "tests/test_ops.py::TestAdd::test_add": "failed",
        "tests/test_ops.py::TestAdd::test_many": "failed",
        "tests/test_ops.py::TestMul::test_mul": "passed",
      });
    }, 300_000);
  }

  it("a module whose load_tests leaves out the named tests: they run all the same, as unittest runs a named test", async () => {
    const root = writeUnittestDataset(tempDir(), unittestCommands.module);
    // As Python-Markdown's md_in_html tests do: load_tests keeps some classes and leaves others out.
    const onlyMul = `${unittestHeldOutTests}\n\ndef load_tests(loader, tests, pattern):\n    return loader.loadTestsFromTestCase(TestMul)\n`;
    writeFileSync(
      join(root, "tasks", "fix-add", "tests.patch"),
      diffAgainst(unittestRepoFiles, (d) => writeFiles(d, { "tests/test_ops.py": onlyMul })),
    );
    const { v, log } = await verify(unittestCommands.module, "oracle", root);
    expect(v.tests, log).toEqual(allPassed);
    expect(v.resolved).toBe(true);
    expect(v.canaries?.trusted).toBe(true);
    const nop = await verify(unittestCommands.module, "", root);
    expect(nop.v.infra_fault).toBe(false);
    expect(nop.v.tests).toMatchObject({
      "tests/test_ops.py::TestAdd::test_add": "failed",
      "tests/test_ops.py::TestMul::test_mul": "passed",
    });
  }, 300_000);

  it("qualification goes through the same runner: the declared lists are what both forms observe", async () => {
    for (const command of Object.values(unittestCommands)) {
      const dataset = loadDataset(writeUnittestDataset(tempDir(), command));
      const report = await qualifyTask(dataset, taskById(dataset).get("fix-add")!, { runs: 2 });
      expect(report.problems, command).toEqual([]);
      expect(report.observed?.fail_to_pass).toEqual(unittestF2P);
      expect(report.observed?.pass_to_pass).toBe(unittestP2P.length);
    }
  }, 300_000);

  it("the project's runner script is sealed: an artifact that rewrites it to pass everything is dropped, and the tests still fail", async () => {
    // In the launcher's process a script could report any outcome it likes: every named test a success.
    const script = [
      "import sys, unittest",
      "result = unittest.TestResult()",
      "def walk(s):",
      "    for t in s:",
      "        walk(t) if isinstance(t, unittest.TestSuite) else result.addSuccess(t)",
      "walk(unittest.TestLoader().loadTestsFromNames([a for a in sys.argv[1:] if not a.startswith('-')]))",
      "print('OK')",
      "sys.exit(0)",
      "",
    ].join("\n");
    const forged = unittestArtifact((d) => writeFiles(d, { "runtests.py": script }));
    const { v } = await verify(unittestCommands.script, forged);
    expect(v.dropped_files).toContain("runtests.py");
    expect(v.notes?.join("\n")).toContain("runtests.py: is the project's test runner script");
    expect(v.resolved).toBe(false);
    expect(v.tests["tests/test_ops.py::TestAdd::test_add"]).toBe("failed");
  }, 300_000);

  // Each payload, and the launcher's words when it catches it.
  const forgeries: Record<string, [string, RegExp]> = {
    "replaces unittest's result method so failures count as successes": [
      [
        "import unittest.result",
        "_ok = unittest.result.TestResult.addSuccess",
        "unittest.result.TestResult.addFailure = lambda self, test, err: _ok(self, test)",
      ].join("\n"),
      /runner functions were replaced or added \(after the run\): unittest\.result\.TestResult\.addFailure/,
    ],
    "replaces TestCase.run so every test reports success": [
      [
        "import unittest.case",
        "unittest.case.TestCase.run = lambda self, result=None: (result.startTest(self), result.addSuccess(self), result.stopTest(self))",
      ].join("\n"),
      /runner functions were replaced or added \(after the run\): unittest\.case\.TestCase\.run/,
    ],
    "writes an all-passed report and exits 0 after the runner's finish": [
      [
        "import atexit, os, sys",
        "def _forge():",
        "    path = getattr(sys.modules.get('__main__'), '_junit', None)",
        "    if path:",
        "        with open(path, 'w') as f:",
        '            f.write(\'<testsuites><testsuite><testcase classname="tests.test_ops.TestAdd" name="test_add"/></testsuite></testsuites>\')',
        "    os._exit(0)",
        "atexit.register(_forge)",
      ].join("\n"),
      /the report file was opened for writing outside the runner|the process exit code 0 is not/,
    ],
  };
  for (const [what, [payload, caught]] of Object.entries(forgeries)) {
    it(`an artifact whose code ${what} is not believed (module and script forms)`, async () => {
      const forged = unittestArtifact((d) => writeFiles(d, { "calc/ops.py": `${payload}\n\n\n${fixedOps.replace("a + b", "a - b")}` }));
      for (const command of Object.values(unittestCommands)) {
        const { v, log } = await verify(command, forged);
        expect(v.resolved, log).toBe(false);
        expect(v.infra_fault).toBe(false);
        expect(log).toMatch(caught);
      }
    }, 600_000);
  }
});
