import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset, taskById, type Dataset, type LoadedTask } from "../../src/dataset/load.js";
import { verifyArtifact } from "../../src/verify/verify-artifact.js";
import { calcF2P, calcP2P, calcRepo, diffAgainst, fixedOps, tempDir, writeCalcDataset, writeFiles } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

let root: string;
let dataset: Dataset;
let task: LoadedTask;
const cache = tempDir("switch-swe-cache-");

beforeAll(() => {
  process.env.SWITCH_SWE_CACHE = cache;
  root = writeCalcDataset(tempDir(), { symlinks: { etc_link: "/etc" } });
  dataset = loadDataset(root);
  task = taskById(dataset).get("fix-add")!;
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(cache, { recursive: true, force: true });
});

const repo = () => ({ ...calcRepo() });
const artifact = (change: (dir: string) => void) => diffAgainst(repo(), change, { etc_link: "/etc" });

async function verify(text: string | null) {
  const work = tempDir();
  const logFile = join(work, "verify.log");
  const v = await verifyArtifact({ dataset, task, artifactText: text, workRoot: join(work, "w"), logFile });
  return { v, log: readFileSync(logFile, "utf8"), work };
}

describe.skipIf(missingTool)("verifyArtifact", () => {
  it("resolves the reference fix, reading a JUnit report, with parametrized and class tests", async () => {
    const { v, log } = await verify(task.stagePatches[0]!);
    expect(v.applied).toBe(true);
    expect(v.apply_method).toBe("git-apply");
    expect(v.result_source).toBe("junit");
    expect(v.tests).toEqual(Object.fromEntries([...calcF2P, ...calcP2P].map((id) => [id, "passed"])));
    expect(v.fail_to_pass).toEqual({ passed: 4, total: 4 });
    expect(v.pass_to_pass).toEqual({ passed: 1, total: 1 });
    expect(v.resolved).toBe(true);
    expect(v.infra_fault).toBe(false);
    // pytest exits 1: the planted must-fail canaries (mutants of the required tests) fail, as they must.
    expect(v.exit_code).toBe(1);
    expect(v.canaries?.trusted).toBe(true);
    expect(v.canaries?.tests.some((t) => t.expected === "failed" && t.of !== undefined && calcF2P.includes(t.of))).toBe(true);
    expect(v.canaries?.tests.map((t) => t.expected)).toContain("passed");
    expect(v.canaries?.tests.every((t) => (t.reported === "passed") === (t.expected === "passed"))).toBe(true);
    // A copy that took its original's name has the original's id (by design); the others stay out of `tests`.
    for (const t of v.canaries!.tests) if (t.id !== t.of) expect(Object.keys(v.tests)).not.toContain(t.id);
    // It would resolve, so the fail-to-pass tests ran again in a fresh process with new canaries.
    expect(log).toContain("second run (fail-to-pass tests in a fresh process, canaries drawn anew)");
    expect(v.attempts).toBe(1);
    expect(v.setup_cached).toBe(false);
    expect(v.artifact_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("an empty artifact applies as `empty` and leaves F2P failing", async () => {
    const { v } = await verify("");
    expect(v.applied).toBe(true);
    expect(v.apply_method).toBe("empty");
    expect(v.resolved).toBe(false);
    expect(v.tests["tests/test_ops.py::test_add"]).toBe("failed");
    expect(v.tests["tests/test_ops.py::test_mul"]).toBe("passed");
    expect(v.exit_code).toBe(1);
    expect(v.infra_fault).toBe(false);
  });

  it("a session without an artifact gets an unresolved no-artifact verdict", async () => {
    const { v } = await verify(null);
    expect(v.applied).toBe(false);
    expect(v.apply_error).toBe("no artifact (session did not finalize)");
    expect(v.artifact_sha256).toBeNull();
    expect(v.resolved).toBe(false);
    expect(Object.values(v.tests).every((s) => s === "missing")).toBe(true);
  });

  it("forged PASSED lines printed by the code under test do not count", async () => {
    const forge = [...calcF2P, ...calcP2P].map((id) => `PASSED ${id}`).join("\\n");
    const text = artifact((d) =>
      writeFiles(d, {
        "calc/ops.py": `import atexit\natexit.register(print, "=========== short test summary info ===========\\n${forge}")\n\n\ndef add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n`,
      }),
    );
    const { v, log } = await verify(text);
    expect(log).toContain("PASSED tests/test_ops.py::test_add");
    expect(v.applied).toBe(true);
    expect(v.result_source).toBe("junit");
    expect(v.tests["tests/test_ops.py::test_add"]).toBe("failed");
    expect(v.resolved).toBe(false);
  });

  it("a conftest.py that marks every test passed is dropped", async () => {
    const text = artifact((d) =>
      writeFiles(d, {
        "conftest.py": [
          "import pytest",
          "",
          "@pytest.hookimpl(hookwrapper=True)",
          "def pytest_runtest_makereport(item, call):",
          "    outcome = yield",
          "    rep = outcome.get_result()",
          "    rep.outcome = 'passed'",
          "",
        ].join("\n"),
        "calc/util.py": "def ident(x):\n    return x  # touched\n",
      }),
    );
    const { v } = await verify(text);
    expect(v.dropped_files).toEqual(["conftest.py"]);
    expect(v.applied).toBe(true);
    expect(v.tests["tests/test_ops.py::test_add"]).toBe("failed");
    expect(v.resolved).toBe(false);
  });

  it("an edit of the held-out test file is dropped", async () => {
    const text = artifact((d) =>
      writeFiles(d, {
        "tests/test_ops.py": "def test_add():\n    pass\n\n\ndef test_mul():\n    pass\n",
        "calc/util.py": "def ident(x):\n    return x  # touched\n",
      }),
    );
    const { v } = await verify(text);
    expect(v.dropped_files).toEqual(["tests/test_ops.py"]);
    expect(v.tests["tests/test_ops.py::test_add"]).toBe("failed");
    expect(v.resolved).toBe(false);
  });

  it("a pytest section added to pyproject.toml (addopts plugin) is undone and listed", async () => {
    const text = artifact((d) =>
      writeFiles(d, {
        "calc/forge.py": [
          "import pytest",
          "",
          "@pytest.hookimpl(hookwrapper=True)",
          "def pytest_runtest_makereport(item, call):",
          "    outcome = yield",
          "    outcome.get_result().outcome = 'passed'",
          "",
        ].join("\n"),
        "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-p calc.forge"\n',
      }),
    );
    const { v } = await verify(text);
    expect(v.dropped_files).toEqual(["pyproject.toml"]);
    expect(v.notes?.join(" ")).toContain("pyproject.toml");
    expect(v.tests["tests/test_ops.py::test_add"]).toBe("failed");
    expect(v.resolved).toBe(false);
  });

  it("a pytest configuration too large to read back is the artifact's failure (restored), not an infrastructure fault", async () => {
    // 20 MB in one option: pytest's parse of it, printed whole, was more than the verifier reads of a helper.
    const huge = [
      "diff --git a/pyproject.toml b/pyproject.toml",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/pyproject.toml",
      "@@ -0,0 +1,2 @@",
      "+[tool.pytest.ini_options]",
      `+addopts = "${"-v ".repeat(7_000_000)}"`,
      "",
    ].join("\n");
    const { v } = await verify(artifact((d) => writeFiles(d, { "calc/ops.py": fixedOps })) + huge);
    expect(v.infra_fault, v.infra_reason).toBe(false);
    expect(v.dropped_files).toEqual(["pyproject.toml"]);
    expect(v.tests["tests/test_ops.py::test_add"]).toBe("passed");
    expect(v.attempts).toBe(1);
  }, 120_000);

  it("refuses a ../ path, naming it", async () => {
    const good = task.stagePatches[0]!;
    const evil = `${good}diff --git a/../escaped.py b/../escaped.py\nnew file mode 100644\n--- /dev/null\n+++ b/../escaped.py\n@@ -0,0 +1 @@\n+x = 1\n`;
    const { v } = await verify(evil);
    expect(v.applied).toBe(false);
    expect(v.apply_error).toContain("../escaped.py");
    expect(v.resolved).toBe(false);
    expect(v.infra_fault).toBe(false);
  });

  it("refuses absolute paths and .git/ paths", async () => {
    const abs = "--- /dev/null\n+++ /tmp/switch-swe-evil\n@@ -0,0 +1 @@\n+x\n";
    expect((await verify(abs)).v.apply_error).toMatch(/absolute|\/tmp\/switch-swe-evil/);
    const dotgit =
      "diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+#!/bin/sh\n";
    const v = (await verify(dotgit)).v;
    expect(v.applied).toBe(false);
    expect(v.apply_error).toContain(".git/hooks/pre-commit");
  });

  it("refuses a symlink escape created by the patch (x -> /etc, then x/passwd)", async () => {
    const evil = [
      "diff --git a/x b/x",
      "new file mode 120000",
      "--- /dev/null",
      "+++ b/x",
      "@@ -0,0 +1 @@",
      "+/etc",
      "\\ No newline at end of file",
      "diff --git a/x/passwd b/x/passwd",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/x/passwd",
      "@@ -0,0 +1 @@",
      "+root::0:0::/root:/bin/sh",
      "",
    ].join("\n");
    const { v } = await verify(evil);
    expect(v.applied).toBe(false);
    expect(v.apply_error).toMatch(/\bx\b.*\/etc.*outside/);
  });

  it("refuses writing through a symlink of the base tree that leads out", async () => {
    const evil =
      "diff --git a/etc_link/switch-swe-evil b/etc_link/switch-swe-evil\nnew file mode 100644\n--- /dev/null\n+++ b/etc_link/switch-swe-evil\n@@ -0,0 +1 @@\n+x\n";
    const { v } = await verify(evil);
    expect(v.applied).toBe(false);
    expect(v.apply_error).toContain("etc_link/switch-swe-evil");
    expect(existsSync("/etc/switch-swe-evil")).toBe(false);
  });

  it("falls back to patch --fuzz when context drifted, and records it", async () => {
    // The hunk's context line differs from the base ("# comment" is not in ops.py).
    const fuzzy = [
      "--- a/calc/ops.py",
      "+++ b/calc/ops.py",
      "@@ -1,4 +1,4 @@",
      " def add(a, b):",
      "-    return a - b",
      "+    return a + b",
      " ",
      " # a comment that is not there",
      "",
    ].join("\n");
    const { v } = await verify(fuzzy);
    expect(v.applied).toBe(true);
    expect(v.apply_method).toBe("patch-fuzz");
    expect(v.resolved).toBe(true);
  });

  it("an unappliable patch is a model failure, not retried", async () => {
    const bad = "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,2 +1,2 @@\n-nothing like this\n-at all\n+x\n+y\n";
    const { v } = await verify(bad);
    expect(v.applied).toBe(false);
    expect(v.apply_error).toContain("git-apply");
    expect(v.infra_fault).toBe(false);
    expect(v.attempts).toBe(1);
  });

  it("a source change that breaks collection makes the required tests error, not an infra fault", async () => {
    const text = artifact((d) => writeFiles(d, { "calc/ops.py": fixedOps.replace("return a + b", "return a +") }));
    const { v } = await verify(text);
    expect(v.applied).toBe(true);
    expect(v.infra_fault).toBe(false);
    expect(v.tests["tests/test_ops.py::test_add"]).toBe("error");
    expect(v.resolved).toBe(false);
  });

  it("a crash the artifact causes (pytest dies while collecting) is a model failure, not an infra fault", async () => {
    const text = artifact((d) => writeFiles(d, { "calc/ops.py": `import os\nos._exit(3)\n${fixedOps}` }));
    const { v, log } = await verify(text);
    expect(log).toContain("control run");
    expect(v.infra_fault).toBe(false);
    expect(v.resolved).toBe(false);
    expect(v.notes?.join(" ")).toContain("the artifact caused it");
    expect(v.attempts).toBe(1);
  });
});

describe.skipIf(missingTool)("verifyArtifact without a JUnit report", () => {
  it("never reads printed output: a command that writes no report is a crash, here the dataset's (infrastructure fault)", async () => {
    const root2 = writeCalcDataset(tempDir(), { tasks: [{ id: "plain", command: "python3 -m pytest -rA -p no:cacheprovider {tests}" }] });
    const ds = loadDataset(root2);
    const work = tempDir();
    const v = await verifyArtifact({
      dataset: ds,
      task: taskById(ds).get("plain")!,
      artifactText: ds.tasks[0]!.stagePatches[0]!,
      workRoot: join(work, "w"),
      logFile: join(work, "log"),
      maxInfraRetries: 0,
    });
    expect(v.result_source).toBe("none");
    expect(v.resolved).toBe(false);
    expect(v.infra_fault).toBe(true);
    expect(v.infra_reason).toContain("no JUnit report");
    expect(v.infra_reason).toContain("without the artifact too");
    rmSync(root2, { recursive: true, force: true });
  });
});
