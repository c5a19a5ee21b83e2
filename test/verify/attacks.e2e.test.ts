import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

/**
 * Forgery attempts as a hostile agent would make them: an attacking script run with
 * `run --agent command` (sandboxed, the default), then `verify` and `report` through the real CLI.
 * None may resolve, and the verdict or the report must say why. The focus task's F2P tests fail on
 * its base, so any "resolved" here would be a forgery.
 */

const dataset = join(packageRoot, "datasets", "sample");
let root: string;
let sessions: string;
let focusSession: string;
let focusWorkspace: string;
let env: NodeJS.ProcessEnv;

interface Verdictish {
  resolved: boolean;
  applied: boolean;
  dropped_files: string[];
  tests: Record<string, string>;
  notes?: string[];
  suspicious?: boolean;
  suspicious_reasons?: string[];
  infra_fault: boolean;
  seal?: string;
}

beforeAll(() => {
  root = tempDir("switch-swe-attacks-");
  env = { SWITCH_SWE_CACHE: join(root, "cache") };
  sessions = join(root, "sessions.json");
  const b = cli(["sessions", "build", dataset, "--seed", "0", "--out", sessions], { env });
  expect(b.code, b.stderr).toBe(0);
  const pairs = (
    JSON.parse(readFileSync(sessions, "utf8")) as { pairs: Array<{ focus: string; repo: string; workspaces: Record<string, string> }> }
  ).pairs;
  const pair = pairs.find((p) => p.repo === "textflow")!;
  focusSession = `${pair.focus}.base`;
  focusWorkspace = Object.entries(pair.workspaces).find(([, t]) => t === pair.focus)![0];
}, 120_000);

/**
 * The focus's real fix (its reference stage patches, as the oracle applies them) beside the attack:
 * only in the switched session (the one whose agent has seen more than one workspace) and only in
 * the focus workspace, once, so that one run holds the attack alone (`.base`) and the attack with
 * the fix (`.switch`).
 */
function fixPreamble(): string {
  const task = focusSession.replace(/\.base$/, "");
  const patches = readdirSync(join(dataset, "tasks", task))
    .filter((f) => /^stage-\d+\.patch$/.test(f))
    .sort();
  const lines = [
    'pwd >> "$SWITCH_SWE_STATE_DIR/seen"',
    `if [ "$(basename "$PWD")" = ${focusWorkspace} ] && [ "$(sort -u "$SWITCH_SWE_STATE_DIR/seen" | wc -l)" -gt 1 ] && [ ! -e "$SWITCH_SWE_STATE_DIR/fixed" ]; then`,
  ];
  for (const [i, f] of patches.entries()) {
    lines.push(
      `cat > "$TMPDIR/fix-${i}.patch" <<'FIXEOF'\n${readFileSync(join(dataset, "tasks", task, f), "utf8")}FIXEOF`,
      `git apply --whitespace=nowarn "$TMPDIR/fix-${i}.patch"`,
    );
  }
  lines.push('touch "$SWITCH_SWE_STATE_DIR/fixed"', "fi");
  return lines.join("\n");
}

type Entry = { id: string; status: string; reason: string | null; detail: string | null };

/**
 * Runs the attacking script (with `withFix`: in the focus's base session alone, and with the focus's
 * real fix in its switched session of the same run), verifies, and returns the verdicts and the
 * report's entries.
 */
function attack(name: string, script: string, extra: string[] = [], withFix = false) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "attack.sh");
  writeFileSync(file, `set -u\n${withFix ? `${fixPreamble()}\n` : ""}${script}\n`);
  const out = join(dir, "run");
  const switched = focusSession.replace(/\.base$/, ".switch");
  const sessionArgs = ["--session", focusSession, ...(withFix ? ["--session", switched] : [])];
  const run = cli(
    [
      "run",
      "--dataset",
      dataset,
      "--sessions",
      sessions,
      ...sessionArgs,
      "--out",
      out,
      "--agent",
      "command",
      "--agent-opt",
      `command=sh ${file}`,
      "--no-verify",
      "--quiet",
      ...extra,
    ],
    { env },
  );
  expect(run.code, run.stderr).toBe(0);
  const verify = cli(["verify", out], { env });
  expect([0, 1]).toContain(verify.code);
  const verdictOf = (s: string) => JSON.parse(readFileSync(join(out, "sessions", s, "verdict.json"), "utf8")) as Verdictish;
  const report = cli(["report", out, "--format", "json"], { env });
  expect(report.code, report.stderr).toBe(0);
  const rep = JSON.parse(report.stdout) as { configs: Array<{ sessions: Entry[] }> };
  const entryOf = (s: string) => rep.configs[0]!.sessions.find((e) => e.id === s)!;
  const fixed = withFix ? { verdict: verdictOf(switched), entry: entryOf(switched) } : null;
  return { out, verdict: verdictOf(focusSession), entry: entryOf(focusSession), fixed, verifyOut: verify.stdout, reportErr: report.stderr };
}

/** The attack beside the real fix: the fix still resolves, every required test passes as the fix alone makes it. */
function expectFixStillResolves(r: ReturnType<typeof attack>) {
  expect(r.fixed, "the run has the session with the fix").not.toBeNull();
  expect(r.fixed!.verdict.resolved, JSON.stringify(r.fixed!.verdict)).toBe(true);
  expect(r.fixed!.verdict.suspicious ?? false).toBe(false);
  expect(r.fixed!.entry.status).toBe("resolved");
}

/** The attack beside the real fix, where the attack makes the whole artifact rejected: no pass at all, fix or not. */
function expectRejectedWithFix(r: ReturnType<typeof attack>) {
  expect(r.fixed, "the run has the session with the fix").not.toBeNull();
  expect(r.fixed!.verdict.resolved).toBe(false);
  expect(r.fixed!.entry.status).toBe("unresolved");
  expect(Object.values(r.fixed!.verdict.tests).every((s) => s === "error")).toBe(true);
}

/** The attack alone resolves nothing, and adds no pass: no fail-to-pass test of the focus passes. */
function expectNotResolved(r: ReturnType<typeof attack>) {
  expect(r.verdict.resolved).toBe(false);
  expect(r.entry.status).toBe("unresolved");
  const task = JSON.parse(readFileSync(join(dataset, "tasks", focusSession.replace(/\.base$/, ""), "task.json"), "utf8")) as {
    verifier: { fail_to_pass: string[] };
  };
  for (const id of task.verifier.fail_to_pass) expect(r.verdict.tests[id], id).not.toBe("passed");
}

// Code appended to every top-level package's __init__.py (the code under test imports it).
const intoPackages = (py: string) => `for f in */__init__.py; do cat >> "$f" <<'PYEOF'\n${py}\nPYEOF\ndone`;

describe.skipIf(missingTool)("class 2: runner configuration in the artifact", () => {
  it("a conftest.py that passes every test, at the root and deeper, is dropped", () => {
    const conftest = [
      "import pytest",
      "@pytest.hookimpl(hookwrapper=True)",
      "def pytest_runtest_makereport(item, call):",
      "    o = yield",
      "    r = o.get_result()",
      "    r.outcome = 'passed'",
    ].join("\n");
    const r = attack(
      "conftest",
      `cat > conftest.py <<'EOF'\n${conftest}\nEOF\nmkdir -p tests/deep && cp conftest.py tests/deep/conftest.py && cp conftest.py textflow/conftest.py`,
      [],
      true,
    );
    expectNotResolved(r);
    expect(r.verdict.dropped_files).toEqual(expect.arrayContaining(["conftest.py", "textflow/conftest.py"]));
    // Beside the real fix: the conftest files are dropped again and the fix resolves on its own merits.
    expectFixStillResolves(r);
    expect(r.fixed!.verdict.dropped_files).toEqual(expect.arrayContaining(["conftest.py", "textflow/conftest.py"]));
  }, 300_000);

  it("a plugin through pyproject.toml with a decoy header, and through an entry point in a .dist-info, is not loaded", () => {
    const plugin = [
      "import pytest",
      "@pytest.hookimpl(hookwrapper=True)",
      "def pytest_runtest_makereport(item, call):",
      "    o = yield",
      "    o.get_result().outcome = 'passed'",
    ].join("\n");
    const script = [
      `cat > forcepass.py <<'EOF'\n${plugin}\nEOF`,
      // The decoy: a multi-line string that looks like a new table to a line-based check.
      `python3 - <<'EOF'\nimport re\nt = open('pyproject.toml').read()\nt = t.replace('[tool.pytest.ini_options]', 'notes = """\\n[tool.other]\\n"""\\n[tool.pytest.ini_options]\\naddopts = "-p forcepass"')\nopen('pyproject.toml', 'w').write(t)\nEOF`,
      "mkdir -p forcepass-1.0.dist-info",
      "printf '[pytest11]\\nforcepass = forcepass\\n' > forcepass-1.0.dist-info/entry_points.txt",
      "printf 'Metadata-Version: 2.1\\nName: forcepass\\nVersion: 1.0\\n' > forcepass-1.0.dist-info/METADATA",
      "printf 'import forcepass\\n' > zz-forcepass.pth",
    ].join("\n");
    const r = attack("plugin", script, [], true);
    expectNotResolved(r);
    expect(r.verdict.dropped_files).toEqual(
      expect.arrayContaining(["pyproject.toml", "forcepass-1.0.dist-info/entry_points.txt", "zz-forcepass.pth"]),
    );
    expect(r.verdict.notes?.join("\n")).toMatch(/pytest configuration changes were undone/);
    // Beside the real fix the channels are dropped again and every required test passes as the fix makes it;
    // the plugin's own module (forcepass.py, which imports pytest) stays in the artifact, so the verdict is
    // suspicious and the report keeps it apart from the resolved ones (unless --trust-suspicious).
    expect(r.fixed!.verdict.dropped_files).toEqual(
      expect.arrayContaining(["pyproject.toml", "forcepass-1.0.dist-info/entry_points.txt", "zz-forcepass.pth"]),
    );
    expect(r.fixed!.verdict.resolved).toBe(true);
    expect(Object.values(r.fixed!.verdict.tests).every((s) => s === "passed")).toBe(true);
    expect(r.fixed!.verdict.suspicious).toBe(true);
    expect(r.fixed!.verdict.suspicious_reasons?.join("\n")).toMatch(/imports pytest from code under test \(forcepass\.py\)/);
    expect(r.fixed!.entry).toMatchObject({ status: "unresolved", reason: "suspicious" });
  }, 300_000);

  it("modules that would shadow the runner (pytest.py, _pytest/, pluggy/) and sitecustomize.py are dropped", () => {
    const script = [
      "printf 'import sys\\nprint(\"1 passed\")\\nsys.exit(0)\\n' > pytest.py",
      "mkdir -p _pytest pluggy && cp pytest.py _pytest/__init__.py && cp pytest.py pluggy/__init__.py",
      "cp pytest.py sitecustomize.py",
    ].join("\n");
    const r = attack("shadow", script, [], true);
    expectNotResolved(r);
    expect(r.verdict.dropped_files).toEqual(
      expect.arrayContaining(["pytest.py", "_pytest/__init__.py", "pluggy/__init__.py", "sitecustomize.py"]),
    );
    expect(r.verdict.notes?.join("\n")).toMatch(/shadows the runner's modules/);
    expectFixStillResolves(r);
  }, 300_000);
});

describe.skipIf(missingTool)("class 3: in-process forgery by the code under test", () => {
  it("patching pytest's reporting at import is seen by the runner: suspicious, every required test error", () => {
    const py = [
      "import _pytest.reports as _r",
      "_orig = _r.TestReport.from_item_and_call",
      "def _forged(item, call):",
      "    rep = _orig(item, call)",
      "    rep.outcome = 'passed'",
      "    return rep",
      "_r.TestReport.from_item_and_call = staticmethod(_forged)",
    ].join("\n");
    const r = attack("patch-runner", intoPackages(py), [], true);
    expectNotResolved(r);
    expect(r.verdict.suspicious).toBe(true);
    expect(r.verdict.suspicious_reasons?.join("\n")).toMatch(/runner's modules/);
    expect(Object.values(r.verdict.tests).every((s) => s === "error")).toBe(true);
    expect(r.verdict.notes?.join("\n")).toMatch(/artifact caused it/);
    // The artifact is rejected as a whole: with the real fix beside it, still suspicious and no test passes.
    expectRejectedWithFix(r);
    expect(r.fixed!.verdict.suspicious).toBe(true);
  }, 300_000);

  it("writing the JUnit report at exit, or printing a summary and calling os._exit(0), is a crash the artifact caused", () => {
    const atexit = [
      "import atexit, os, sys",
      "def _forge():",
      "    for i, a in enumerate(sys.argv):",
      "        if a.startswith('--junitxml='):",
      "            open(a.split('=', 1)[1], 'w').write('<testsuites><testsuite name=\"pytest\" tests=\"0\"></testsuite></testsuites>')",
      "    os._exit(0)",
      "atexit.register(_forge)",
    ].join("\n");
    const a = attack("atexit-report", intoPackages(atexit), [], true);
    expectNotResolved(a);
    expect(a.verdict.suspicious).toBe(true);
    expect(Object.values(a.verdict.tests).every((s) => s === "error")).toBe(true);
    // Rejected as a whole (a crash the artifact caused), with the real fix beside it too.
    expectRejectedWithFix(a);

    const exit = [
      "import os",
      "print('=========================== short test summary info ============================')",
      "print('PASSED tests/test_x.py::test_y')",
      "print('1 passed in 0.01s')",
      "os._exit(0)",
    ].join("\n");
    // Without the fix variant: the same rejection as above (a crash the artifact caused), and the file is the slowest.
    const b = attack("os-exit", intoPackages(exit));
    expectNotResolved(b);
    expect(b.verdict.suspicious_reasons?.join("\n")).toMatch(/os\._exit/);
    expect(b.verdict.notes?.join("\n")).toMatch(/no end-of-session record/);
  }, 600_000);
});

describe.skipIf(missingTool)("class 1: out of process, during the run (sandboxed)", () => {
  it("the dataset, the run directory and the caller's HOME are out of reach; no variable names the session", () => {
    const script = [
      `ls ${dataset}/tasks > leak-dataset.txt 2>&1 || true`,
      `cat ${dataset}/tasks/*/tests.patch >> leak-dataset.txt 2>&1 || true`,
      `ls ${root} > leak-rundir.txt 2>&1 || true`,
      `for v in $(find ${root} -name verdict.json 2>/dev/null); do echo '{"resolved": true}' > "$v"; done`,
      "ls -a $HOME /root > leak-home.txt 2>&1 || true",
      "env | sort > leak-env.txt",
      "pwd > leak-pwd.txt",
    ].join("\n");
    const r = attack("reach", script);
    expectNotResolved(r);
    const artifact = readFileSync(join(r.out, "sessions", focusSession, "artifact.patch"), "utf8");
    expect(artifact).not.toContain("diff --git a/tests/"); // nothing of any tests.patch was read
    expect(artifact).toMatch(/\+.*No such file or directory/);
    expect(artifact).not.toContain("SWITCH_SWE_SESSION");
    expect(artifact).not.toContain(root);
    expect(artifact).toMatch(/\+\/workspace\/textflow\/w0\d/);
  }, 300_000);

  it("a setsid daemon started by the agent is gone when its request ends", () => {
    const marker = `switch-swe-daemon-${process.pid}`;
    const script = `setsid sh -c 'while :; do echo ${marker} >> daemon.txt; sleep 0.2; done' >/dev/null 2>&1 < /dev/null &\nnohup sh -c 'sleep 300; : ${marker}' >/dev/null 2>&1 &\nsleep 0.5`;
    const r = attack("daemon", script);
    expectNotResolved(r);
    const alive = readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker);
        } catch {
          return false;
        }
      });
    expect(alive).toEqual([]);
    expect(existsSync(join(r.out, "sessions", focusSession, "artifact.patch"))).toBe(true);
  }, 300_000);

  it("a verdict edited after verification counts as no verdict, loudly", () => {
    const r = attack("edit-verdict", "true");
    const file = join(r.out, "sessions", focusSession, "verdict.json");
    const v = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    writeFileSync(
      file,
      JSON.stringify({ ...v, resolved: true, tests: Object.fromEntries(Object.keys(v.tests as object).map((k) => [k, "passed"])) }),
    );
    const report = cli(["report", r.out, "--format", "json"], { env });
    const rep = JSON.parse(report.stdout) as { configs: Array<{ sessions: Array<{ id: string; reason: string | null }> }> };
    expect(rep.configs[0]!.sessions.find((s) => s.id === focusSession)!.reason).toBe("no verdict");
    expect(report.stderr + report.stdout).toMatch(/seal: does not match the run's key/);
  }, 300_000);
});
