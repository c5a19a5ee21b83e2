import { describe, expect, it } from "vitest";
import { hushTestModules, intoPackages, sampleAttackBench } from "./sample-attack.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

/**
 * Issue 32, class 2: the test process is not believed. Each attack is code under test that changes
 * what pytest's own process knows (the import machinery, our launcher's module globals, pytest's
 * report classes), written by a hostile agent (`run --agent command`, sandboxed) and verified through
 * the real CLI. Every one made the old verifier answer "resolved"; each must now be unresolved with
 * its reason, and each test shows that the attack's payload really ran (its marker, or the forged
 * pass of a fail-to-pass test, in verify.log), so that a 0 here means a defence, not a dud.
 */

const { bench, attack } = sampleAttackBench("switch-swe-trust-attacks-");

/** Unresolved, by the verdict and by the report; no fail-to-pass test counted passed; no infrastructure fault. */
function expectUnresolved(r: ReturnType<typeof attack>) {
  expect(r.verdict.resolved, JSON.stringify(r.verdict)).toBe(false);
  expect(r.verdict.infra_fault).toBe(false);
  expect(r.entry.status).toBe("unresolved");
  for (const id of bench.f2p) expect(r.verdict.tests[id], id).not.toBe("passed");
  // The canaries stay out of the per-test lists (a copy that took its original's name has the original's id, by design).
  for (const c of r.verdict.canaries?.tests ?? []) if (c.id !== c.of) expect(Object.keys(r.verdict.tests)).not.toContain(c.id);
}

/** The payload ran: the first run's output in verify.log shows a fail-to-pass test passing (the base fails it). */
function expectForgedPassInLog(r: ReturnType<typeof attack>) {
  expect(
    bench.f2p.some((id) => r.log.includes(`PASSED ${id}`)),
    `the forgery made a fail-to-pass test pass in the logged run:\n${r.log.slice(0, 6000)}`,
  ).toBe(true);
}

// (a) test functions swapped for no-ops through the import machinery: the module being imported gets
// a module class whose attribute lookup wraps every test_* function; later test modules get it from a
// meta_path finder. pytest really runs empty tests, and JUnit, the channel and the exit status agree.
const noOpSwap = [
  "import sys as _s, functools as _f, types as _t",
  "def _quiet(v):",
  "    def quiet(*a, **kw):",
  '        print("ATTACK-A-NOOP-RAN")',
  "    return _f.wraps(v)(quiet)",
  "class _QuietModule(_t.ModuleType):",
  "    def __getattribute__(self, k):",
  "        v = _t.ModuleType.__getattribute__(self, k)",
  '        return _quiet(v) if k.startswith("test_") and callable(v) else v',
  ...hushTestModules("_QuietModule"),
].join("\n");

// (b) the launcher's own state rewritten through its module globals (`import __main__`): its audit
// hook silenced, its identity check replaced by a no-op, then pytest's report factory forges passes.
const launcherGlobals = [
  "import __main__ as _m",
  '_m._phase[0] = "writing-report"',
  "_m._check_identity = lambda when: None",
  "_TR = _m.pytest.TestReport",
  '_orig = _TR.__dict__["from_item_and_call"].__func__',
  "def _forged(cls, item, call):",
  "    rep = _orig(cls, item, call)",
  '    if rep.outcome == "failed":',
  '        rep.outcome = "passed"',
  "        rep.longrepr = None",
  "    return rep",
  "_TR.from_item_and_call = classmethod(_forged)",
  '_m._phase[0] = "running"',
].join("\n");

// (d) a classmethod of pytest's report machinery replaced (not a function: the old check missed it).
const classmethodSwap = [
  "import __main__ as _m",
  "_TR = _m.pytest.TestReport",
  '_orig = _TR.__dict__["from_item_and_call"].__func__',
  "def _forged(cls, item, call):",
  "    rep = _orig(cls, item, call)",
  '    if rep.outcome == "failed":',
  '        rep.outcome = "passed"',
  "        rep.longrepr = None",
  "    return rep",
  "_TR.from_item_and_call = classmethod(_forged)",
].join("\n");

describe.skipIf(missingTool)("class 2 (issue 32): the test process is not believed", () => {
  it("(a) test functions swapped for no-ops through the import machinery: the planted must-fail test passes, so the run is untrusted", () => {
    const r = attack("noop-swap", intoPackages(noOpSwap));
    expectUnresolved(r);
    expect(r.log).toContain("ATTACK-A-NOOP-RAN");
    expect(r.verdict.canaries?.trusted).toBe(false);
    expect(r.verdict.canaries?.problems?.join("\n")).toMatch(/must have failed but was reported passed/);
    expect(r.verdict.notes?.join("\n")).toMatch(/contradicts the tests the harness planted[\s\S]*artifact caused it/);
    expect(Object.values(r.verdict.tests).every((s) => s === "error")).toBe(true);
  }, 600_000);

  it("(b) the launcher's globals and report hooks rewritten from inside: its own checks are silenced, the canaries are not", () => {
    const r = attack("launcher-globals", intoPackages(launcherGlobals));
    expectUnresolved(r);
    expectForgedPassInLog(r);
    expect(r.verdict.canaries?.trusted).toBe(false);
    expect(r.verdict.notes?.join("\n")).toMatch(/contradicts the tests the harness planted/);
    expect(r.verdict.suspicious_reasons?.join("\n")).toMatch(/running program's own module \(__main__/);
  }, 600_000);

  it("(c) a base64 payload in a file the workspace's .gitattributes marks binary: collected as text, decoded by the scan, and caught running", () => {
    const script = [
      "printf '*.py binary\\n' > .gitattributes",
      `payload=$(python3 -c 'import base64, sys; print(base64.b64encode(sys.stdin.buffer.read()).decode())' <<'PYEOF'\n${classmethodSwap}\nPYEOF\n)`,
      `for f in */__init__.py; do grep -q '^# attack$' "$f" && continue; printf '# attack\\nimport base64\\nexec(base64.b64decode("%s"))\\n' "$payload" >> "$f"; done`,
    ].join("\n");
    const r = attack("hidden-payload", script);
    expect(r.artifact).not.toContain("GIT binary patch");
    expect(r.artifact).toMatch(/^\+exec\(base64\.b64decode\(/m);
    expectUnresolved(r);
    expectForgedPassInLog(r);
    const reasons = r.verdict.suspicious_reasons?.join("\n") ?? "";
    expect(reasons).toMatch(/executes data it decodes/);
    expect(reasons).toMatch(/hides code that reaches the running program's own module/);
    expect(r.entry.status).toBe("unresolved");
  }, 600_000);

  it("(d) a classmethod of pytest's report machinery replaced at import: the runner's class snapshot sees it", () => {
    const r = attack("classmethod-swap", intoPackages(classmethodSwap));
    expectUnresolved(r);
    expectForgedPassInLog(r);
    expect(r.verdict.notes?.join("\n")).toMatch(/runner class attributes were replaced[^\n]*TestReport\.from_item_and_call/);
    expect(r.verdict.suspicious_reasons?.join("\n")).toMatch(/TestReport\.from_item_and_call/);
    expect(Object.values(r.verdict.tests).every((s) => s === "error")).toBe(true);
  }, 600_000);
});
