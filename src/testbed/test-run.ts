import { existsSync, readFileSync, rmSync } from "node:fs";
import { runProcess } from "../core/process.js";
import type { TestStatus } from "../formats/verdict.js";
import { parseJunitReport, type CaseOutcome } from "./junit-xml.js";
import { caseKey, caseNodeId, collectionErrorScope, inScope, mangleNodeId } from "./pytest-ids.js";
import { collectionInterruption, parsePytestSummary } from "./pytest-output.js";

/** Used when neither the task's verifier nor its repository names a test command. */
export const defaultTestCommand = "python3 -m pytest -rA -p no:cacheprovider --junitxml={junit} {tests}";

export interface TestRun {
  command: string;
  /** Outcome of every reported test, by pytest node id (the worst outcome when reported twice). */
  cases: Map<string, CaseOutcome>;
  /** JUnit (classname, name) key → node id, to match required ids whatever pytest's root was. */
  byKey: Map<string, string>;
  /** Files (`a/test_x.py`) or directories (`a/`) whose collection failed. */
  collectionErrors: string[];
  /** Requested ids pytest reported as not existing; the run was repeated without them (they are `missing`). */
  notFound: string[];
  source: "junit" | "output" | "none";
  /** Set when a report exists but cannot be read. */
  reportError?: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  spawnError?: string;
  durationMs: number;
  stdout: string;
  stderr: string;
}

/** POSIX shell quoting: one argument, whatever it holds. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Fills `{tests}` (the shell-quoted ids, or nothing for the whole suite) and `{junit}` (the report path). */
export function buildTestCommand(template: string, testIds: readonly string[] | null, junitPath: string): string {
  return template
    .replace(/\{tests\}/g, () => (testIds ?? []).map(shellQuote).join(" "))
    .replace(/\{junit\}/g, () => shellQuote(junitPath));
}

const rank: Record<CaseOutcome, number> = { passed: 0, skipped: 1, failed: 2, error: 3 };

function record(cases: Map<string, CaseOutcome>, id: string, outcome: CaseOutcome): void {
  const prev = cases.get(id);
  if (prev === undefined || rank[outcome] > rank[prev]) cases.set(id, outcome);
}

export interface RunTestsOptions {
  checkout: string;
  template: string;
  /** Required ids to run, or null for the whole suite. */
  testIds: readonly string[] | null;
  /** Where pytest writes its report: outside the checkout, so the code under test cannot plant one beforehand. */
  junitPath: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/** Runs the test command once (process group killed at the deadline) and reads what it reported. */
export async function runTests(opts: RunTestsOptions): Promise<TestRun> {
  rmSync(opts.junitPath, { force: true });
  const command = buildTestCommand(opts.template, opts.testIds, opts.junitPath);
  const r = await runProcess("/bin/sh", ["-c", command], { cwd: opts.checkout, env: opts.env, timeoutMs: opts.timeoutMs });
  const run: TestRun = {
    command,
    cases: new Map(),
    byKey: new Map(),
    collectionErrors: [],
    notFound: [],
    source: "none",
    exitCode: r.code,
    signal: r.signal,
    timedOut: r.timedOut,
    ...(r.spawnError ? { spawnError: r.spawnError } : {}),
    durationMs: r.durationMs,
    stdout: r.stdout,
    stderr: r.stderr,
  };
  if (existsSync(opts.junitPath)) {
    run.source = "junit";
    try {
      for (const c of parseJunitReport(readFileSync(opts.junitPath, "utf8"))) {
        const scope = collectionErrorScope(c, opts.checkout);
        if (scope !== null) {
          if (c.outcome === "error" || c.outcome === "failed") run.collectionErrors.push(scope);
          continue;
        }
        const id = caseNodeId(c, opts.checkout);
        record(run.cases, id, c.outcome);
        run.byKey.set(caseKey(c), id);
      }
    } catch (e) {
      run.reportError = (e as Error).message;
      run.cases.clear();
      run.byKey.clear();
    }
    return run;
  }
  const summary = parsePytestSummary(r.stdout);
  if (summary !== null) {
    run.source = "output";
    for (const s of summary) {
      if (!s.nodeId.includes("::")) {
        if (s.outcome === "error" || s.outcome === "failed") run.collectionErrors.push(s.nodeId);
        continue;
      }
      record(run.cases, s.nodeId, s.outcome);
      run.byKey.set(mangleNodeId(s.nodeId), s.nodeId);
    }
  }
  return run;
}

/** The reported outcome of one required id: by exact node id, else by pytest's JUnit mangling. */
export function lookupCase(run: TestRun, id: string): CaseOutcome | undefined {
  const exact = run.cases.get(id);
  if (exact !== undefined) return exact;
  const viaKey = run.byKey.get(mangleNodeId(id));
  return viaKey === undefined ? undefined : run.cases.get(viaKey);
}

/**
 * The status of each required test. A test that was never reported is `missing`, or `error` when
 * its file failed to collect, or `timeout` when the run was killed at its deadline. Without a
 * report, a killed run's printed pass claims are not believed.
 */
export function requiredStatuses(run: TestRun, required: readonly string[]): Record<string, TestStatus> {
  const out: Record<string, TestStatus> = {};
  for (const id of required) {
    let outcome = lookupCase(run, id);
    if (run.timedOut && run.source !== "junit" && outcome === "passed") outcome = undefined;
    if (outcome !== undefined) out[id] = outcome;
    else if (run.collectionErrors.some((scope) => inScope(id, scope))) out[id] = "error";
    else out[id] = run.timedOut ? "timeout" : "missing";
  }
  return out;
}

/** Whether the run reported any failing or erroring test (or a collection error). */
export function reportedFailures(run: TestRun): boolean {
  if (run.collectionErrors.length > 0) return true;
  for (const o of run.cases.values()) if (o === "failed" || o === "error") return true;
  return false;
}

/**
 * Why a finished run cannot be trusted as a test outcome, or null when it can: the command did
 * not start, pytest stopped at collection, nothing readable was reported, or it exited non-zero
 * without any test failing (a usage error, a crash while loading conftest, an internal error).
 * A run whose every requested id does not exist is trusted: those tests are `missing`.
 */
export function untrustedRunReason(run: TestRun): string | null {
  if (run.timedOut) return null;
  if (run.spawnError) return `could not start the test command: ${run.spawnError}`;
  if (run.reportError) return `the JUnit report is unreadable: ${run.reportError}`;
  const interrupted = collectionInterruption(run.stdout);
  if (interrupted) return `pytest stopped at collection (${interrupted}): the tests of the other files did not run`;
  if (run.exitCode === 4 && run.notFound.length > 0 && run.cases.size === 0) return null;
  if (run.source === "none") return `no test results: no JUnit report and no pytest summary (exit ${run.exitCode ?? run.signal})`;
  if (run.exitCode !== 0 && !reportedFailures(run)) {
    return `the test command exited ${run.exitCode ?? `by signal ${run.signal}`} but reported no failing test`;
  }
  return null;
}
