import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { runProcess } from "../core/process.js";
import type { TestStatus } from "../formats/verdict.js";
import { parseJunitReport, type CaseOutcome } from "./junit-xml.js";
import { caseKey, inScope, mangleNodeId } from "./pytest-ids.js";
import { channelFd, type LauncherFiles } from "./launcher-files.js";
import { parseRunnerStream, type RunnerStream } from "./runner-stream.js";
import type { TestRunner } from "./test-runner.js";

export interface TestRun {
  command: string;
  /** The runner's name (TestRunner.name). */
  runner: string;
  /** Outcome of every reported test, by pytest node id (the worst outcome when reported twice). */
  cases: Map<string, CaseOutcome>;
  /** JUnit (classname, name) key → node id, to match required ids whatever pytest's root was. */
  byKey: Map<string, string>;
  /** Files (`a/test_x.py`) or directories (`a/`) whose collection failed. */
  collectionErrors: string[];
  /** Requested ids pytest reported as not existing; the run was repeated without them (they are `missing`). */
  notFound: string[];
  source: "junit" | "none";
  /** What our runner plugin streamed on its own channel (null when the command never reached it). */
  stream: RunnerStream | null;
  /** Set when the command cannot be hardened (it does not start the runner in a way the verifier recognizes). */
  commandError?: string;
  /** The runner's own words that it stopped at collection (the other files' tests did not run), or null. */
  interrupted: string | null;
  /** Set when a report exists but cannot be read. */
  reportError?: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  spawnError?: string;
  durationMs: number;
  stdout: string;
  stderr: string;
  /** The run's resource limits and what held (set when it ran under limits). */
  limits?: string;
  /** How the run was confined (set by the verifier's test-bed). */
  sandbox?: string;
}

/** POSIX shell quoting: one argument, whatever it holds. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Fills `{tests}` (the shell-quoted ids, or nothing for the whole suite), `{junit}` (the report path)
 * and `{launcher}` (our pytest launcher with its channel, nonce, rootdir and inifile).
 */
export function buildTestCommand(
  template: string,
  testIds: readonly string[] | null,
  junitPath: string,
  launcher?: LauncherFiles & { rootdir: string },
): string {
  const launch = launcher
    ? [launcher.launcher, String(channelFd), launcher.nonce, launcher.rootdir, launcher.inifile, "--"].map(shellQuote).join(" ")
    : "";
  return template
    .replace(/\{tests\}/g, () => (testIds ?? []).map(shellQuote).join(" "))
    .replace(/\{junit\}/g, () => shellQuote(junitPath))
    .replace(/\{launcher\}/g, () => launch);
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
  /** The runner the command starts, and our launcher of it (copied outside the checkout), its configuration and the run's nonce. */
  runner: TestRunner;
  launcher: LauncherFiles;
  /** Where the wrapped command sees the checkout (default: `checkout`): the rootdir it is given. */
  checkoutInside?: string;
  /** Wraps the command in a sandbox: returns the program and arguments to start instead of `/bin/sh -c CMD`. */
  wrap?: (argv: readonly string[]) => { command: string; args: string[] };
}

/** Runs the test command once (process group killed at the deadline) and reads what it reported. */
export async function runTests(opts: RunTestsOptions): Promise<TestRun> {
  rmSync(opts.junitPath, { force: true });
  mkdirSync(dirname(opts.junitPath), { recursive: true });
  const hardened = opts.runner.harden(opts.template);
  const command = buildTestCommand(hardened ?? opts.template, opts.testIds, opts.junitPath, {
    ...opts.launcher,
    rootdir: opts.checkoutInside ?? opts.checkout,
  });
  const run: TestRun = {
    command,
    runner: opts.runner.name,
    cases: new Map(),
    byKey: new Map(),
    collectionErrors: [],
    notFound: [],
    source: "none",
    stream: null,
    interrupted: null,
    exitCode: null,
    signal: null,
    timedOut: false,
    durationMs: 0,
    stdout: "",
    stderr: "",
  };
  if (hardened === null) {
    run.commandError = opts.runner.unhardened;
    return run;
  }
  const argv = ["/bin/sh", "-c", command];
  const start = opts.wrap ? opts.wrap(argv) : { command: argv[0]!, args: argv.slice(1) };
  const r = await runProcess(start.command, start.args, { cwd: opts.checkout, env: opts.env, timeoutMs: opts.timeoutMs, channel: true });
  Object.assign(run, {
    exitCode: r.code,
    signal: r.signal,
    timedOut: r.timedOut,
    durationMs: r.durationMs,
    stdout: r.stdout,
    stderr: r.stderr,
  });
  if (r.spawnError) run.spawnError = r.spawnError;
  run.interrupted = opts.runner.collectionInterruption(r.stdout);
  run.stream = parseRunnerStream(r.channel ?? "", opts.launcher.nonce);
  if (existsSync(opts.junitPath)) {
    run.source = "junit";
    try {
      // The report's ids are relative; the checkout's files are looked up on the host.
      readJunit(run, readFileSync(opts.junitPath, "utf8"), opts.checkout, opts.runner);
    } catch (e) {
      run.reportError = (e as Error).message;
      run.cases.clear();
      run.byKey.clear();
    }
  }
  return run;
}

function readJunit(run: TestRun, xml: string, checkout: string, runner: TestRunner): void {
  for (const c of parseJunitReport(xml)) {
    const scope = runner.collectionErrorScope(c, checkout);
    if (scope !== null) {
      if (c.outcome === "error" || c.outcome === "failed") run.collectionErrors.push(scope);
      continue;
    }
    const id = runner.caseNodeId(c, checkout);
    record(run.cases, id, c.outcome);
    run.byKey.set(caseKey(c), id);
  }
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
    const outcome = lookupCase(run, id);
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

/** Where the JUnit report and the runner's own channel disagree (by pytest's (classname, name) key). */
export function channelDisagreements(run: TestRun): string[] {
  if (run.stream === null) return [];
  const fromStream = new Map<string, CaseOutcome>();
  for (const [id, o] of run.stream.cases) fromStream.set(mangleNodeId(id), o);
  // A collector below module level (one class of a module) that fails is an error case in the report;
  // the runner sees it as a collection report. Module and directory errors are not cases in either.
  for (const id of run.stream.collectionErrors) if (id.includes("::")) fromStream.set(mangleNodeId(id), "error");
  const out: string[] = [];
  for (const [key, id] of run.byKey) {
    const j = run.cases.get(id);
    const s = fromStream.get(key);
    if (j !== s) out.push(`${id}: report ${j ?? "absent"}, runner ${s ?? "absent"}`);
    fromStream.delete(key);
  }
  for (const [key, s] of fromStream) out.push(`${key.replace("\u0000", "::")}: report absent, runner ${s}`);
  return out;
}

/** Why the runner's own channel contradicts the run, or null. */
function channelReason(run: TestRun): string | null {
  const s = run.stream;
  if (s === null || !s.started) return "the runner never started (nothing on its channel)";
  if (s.tamper.length > 0) return `the runner saw tampering: ${s.tamper.join("; ")}`;
  if (s.foreign > 0) return `${s.foreign} record(s) on the runner's channel were not written by the runner`;
  if (s.exitStatus === null && s.crash !== null) return `${run.runner} stopped with an error before its session finished: ${s.crash}`;
  if (s.exitStatus === null)
    return `the process ended before ${run.runner}'s session did (os._exit, a crash or a signal): no end-of-session record`;
  if (run.exitCode !== s.exitStatus)
    return `the process exit code ${run.exitCode ?? run.signal} is not ${run.runner}'s exit status ${s.exitStatus}`;
  return null;
}

/**
 * Why a finished run cannot be trusted as a test outcome, or null when it can: the command did
 * not start, pytest stopped at collection, the runner's channel shows tampering or an unfinished
 * session, the exit code is not pytest's, there is no well-formed JUnit report, the report and the
 * channel disagree, or it exited non-zero without any test failing (a usage error, a crash while
 * loading conftest). There is no fallback to printed output: the artifact's code could have printed
 * it. A run whose every requested id does not exist is trusted: those tests are `missing`.
 */
export function untrustedRunReason(run: TestRun): string | null {
  if (run.timedOut) return null;
  if (run.commandError) return run.commandError;
  if (run.spawnError) return `could not start the test command: ${run.spawnError}`;
  // Nothing that exists was asked for: every required id is `missing`, which no artifact can turn into a pass.
  if (run.exitCode === 4 && run.notFound.length > 0 && run.cases.size === 0) return null;
  const channel = channelReason(run);
  if (channel) return channel;
  if (run.reportError) return `the JUnit report is unreadable: ${run.reportError}`;
  if (run.interrupted) return `${run.runner} stopped at collection (${run.interrupted}): the tests of the other files did not run`;
  if (run.source === "none") return `no JUnit report (exit ${run.exitCode ?? run.signal})`;
  const disagree = channelDisagreements(run);
  if (disagree.length > 0)
    return `the JUnit report and the runner's channel disagree on ${disagree.length} test(s): ${disagree.slice(0, 3).join("; ")}`;
  if (run.exitCode !== 0 && !reportedFailures(run)) {
    return `the test command exited ${run.exitCode ?? `by signal ${run.signal}`} but reported no failing test`;
  }
  return null;
}

/**
 * Why a suite run (the whole suite, or the modules a task touches) cannot be classified, for mining
 * and qualification alike: it is untrusted, or it collected nothing and named no module it could not
 * import. A module that imports what the reference adds is such a collection error without the
 * reference, and its tests are "not collected" there, i.e. failing (a task whose tests are all new,
 * in a module of their own, runs no test at all before its reference).
 */
export function suiteRunProblem(run: TestRun): string | null {
  return untrustedRunReason(run) ?? (run.cases.size === 0 && run.collectionErrors.length === 0 ? "no test was collected" : null);
}
