import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import { patchFiles } from "../dataset/patch-files.js";
import { testIdFile } from "../dataset/test-id-paths.js";
import type { PreparedEnv } from "../testbed/env-cache.js";
import { inScope } from "../testbed/pytest-ids.js";
import { suiteRunProblem, type TestRun } from "../testbed/test-run.js";
import {
  checkoutWithPatches,
  describeRun,
  environmentFor,
  freshCheckout,
  isTestModuleOf,
  runWholeSuite,
  testRunnerOf,
  type NamedPatch,
} from "../testbed/task-testbed.js";
import { classifyTest, compareWithDeclared, rewrittenLists, type RunOutcome, type TestClass } from "./classify.js";
import { changingIds } from "../dataset/generated-ids.js";

export type SuiteState = "without" | "with";

export interface SuiteRunSummary {
  state: SuiteState;
  run: number;
  exit_code: number | null;
  timed_out: boolean;
  result_source: TestRun["source"];
  tests: number;
  duration_ms: number;
}

export interface QualifyReport {
  task: string;
  qualified: boolean;
  problems: string[];
  differences: string[];
  observed: { fail_to_pass: string[]; pass_to_pass: number; unstable: string[]; other: string[] };
  declared: { fail_to_pass: string[]; pass_to_pass: string[] };
  /** The lists `--write` would declare (or declared); null whenever a suite run could not be trusted. */
  proposed: { fail_to_pass: string[]; pass_to_pass: string[] } | null;
  runs: SuiteRunSummary[];
  setup_cached: boolean;
  duration_ms: number;
}

export interface QualifyOptions {
  /** Suite runs per state (default 3). */
  runs?: number;
  /** Where suite logs go (one file per task); default: none kept. */
  logFile?: string;
  setupTimeoutMs?: number;
  /**
   * `whole` (default): the whole suite. `touched`: only the test modules tests.patch changes and
   * those the declared ids live in, as `tasks mine --suite touched` ran them (for suites that take
   * hours); F2P and P2P are then observed in those files only.
   */
  suite?: "whole" | "touched";
}

type Collected = Record<SuiteState, TestRun[]>;

interface QualifyContext {
  dataset: Dataset;
  task: LoadedTask;
  work: string;
  report: QualifyReport;
  log: (t: string) => void;
  env: () => Promise<PreparedEnv>;
  /** The test files each run is limited to, or null for the whole suite. */
  only: string[] | null;
}

/** The test modules `--suite touched` runs: those tests.patch changes and those the declared ids name (modules by the task's runner). */
export function touchedTestModules(dataset: Dataset, task: LoadedTask): string[] {
  const changed = patchFiles(task.testsPatch).flatMap((f) => (f.to ? [f.to] : []));
  const declared = [...task.verifier.fail_to_pass, ...task.verifier.pass_to_pass].flatMap((id) => testIdFile(id) ?? []);
  return [...new Set([...changed, ...declared])].filter(isTestModuleOf(dataset, task)).sort();
}

function emptyReport(task: LoadedTask): QualifyReport {
  return {
    task: task.id,
    qualified: false,
    problems: [],
    differences: [],
    observed: { fail_to_pass: [], pass_to_pass: 0, unstable: [], other: [] },
    declared: { fail_to_pass: [...task.verifier.fail_to_pass], pass_to_pass: [...task.verifier.pass_to_pass] },
    proposed: null,
    runs: [],
    setup_cached: false,
    duration_ms: 0,
  };
}

/** The environment, prepared once per qualification in a probe checkout of the base. */
function lazyEnvironment(ctx: Omit<QualifyContext, "env">, setupTimeoutMs: number): () => Promise<PreparedEnv> {
  let prepared: PreparedEnv | null = null;
  return async () => {
    if (!prepared) {
      const probe = join(ctx.work, "env-probe");
      const co = await freshCheckout(ctx.dataset, ctx.task, probe);
      prepared = await environmentFor(ctx.dataset, ctx.task, co, ctx.log, setupTimeoutMs);
      ctx.report.setup_cached = prepared.cached;
      rmSync(probe, { recursive: true, force: true });
    }
    return prepared;
  };
}

function statePatches(task: LoadedTask): Array<{ state: SuiteState; patches: NamedPatch[] }> {
  const tests = { name: "tests.patch", text: task.testsPatch };
  return [
    { state: "without", patches: [tests] },
    { state: "with", patches: [...task.stagePatches.map((text, k) => ({ name: `stage-${k + 1}.patch`, text })), tests] },
  ];
}

/** One whole-suite run in a fresh checkout; a string says why the run cannot be used. */
async function suiteRun(ctx: QualifyContext, state: SuiteState, i: number, patches: NamedPatch[]): Promise<TestRun | string> {
  const scratch = join(ctx.work, `${state}-${i}`);
  mkdirSync(scratch, { recursive: true });
  ctx.log(`\n=== ${state} the reference, run ${i} ===\n`);
  try {
    const applied = await checkoutWithPatches(ctx.dataset, ctx.task, join(scratch, "checkout"), scratch, patches);
    if (typeof applied === "string") return applied;
    const only = ctx.only?.filter((f) => existsSync(join(scratch, "checkout", f))) ?? null;
    const run = await runWholeSuite(ctx.dataset, ctx.task, join(scratch, "checkout"), scratch, await ctx.env(), only);
    ctx.log(describeRun(run));
    ctx.report.runs.push({
      state,
      run: i,
      exit_code: run.exitCode,
      timed_out: run.timedOut,
      result_source: run.source,
      tests: run.cases.size,
      duration_ms: run.durationMs,
    });
    const why = run.timedOut ? `timed out after ${ctx.task.verifier.timeout_s} s` : suiteRunProblem(run);
    return why ? `suite run ${i} ${state} the reference: ${why}` : run;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every suite run; null (with a problem recorded) as soon as one cannot be trusted. */
async function collectRuns(ctx: QualifyContext, runs: number): Promise<Collected | null> {
  const collected: Collected = { without: [], with: [] };
  for (let i = 1; i <= runs; i++) {
    for (const s of statePatches(ctx.task)) {
      const r = await suiteRun(ctx, s.state, i, s.patches);
      if (typeof r === "string") {
        ctx.report.problems.push(r);
        return null;
      }
      collected[s.state].push(r);
    }
  }
  return collected;
}

function outcomeIn(run: TestRun, id: string): RunOutcome {
  return run.cases.get(id) ?? (run.collectionErrors.some((scope) => inScope(id, scope)) ? "error" : "absent");
}

/** Classifies every reported test; ids that change between runs are dropped (and said so). */
function classifyAll(collected: Collected, report: QualifyReport): { classes: Map<string, TestClass>; history: Map<string, string> } {
  const ids = (runs: TestRun[]) => runs.map((r) => new Set(r.cases.keys()));
  const changing = new Set(changingIds(ids(collected.without), ids(collected.with)));
  if (changing.size > 0) {
    const list = [...changing];
    report.differences.push(
      `dropped ${list.length} parametrized id(s) that change between runs (time- or environment-dependent): ${list.slice(0, 5).join(", ")}${list.length > 5 ? ", ..." : ""}`,
    );
  }
  const universe = new Set<string>();
  for (const r of [...collected.without, ...collected.with]) for (const id of r.cases.keys()) if (!changing.has(id)) universe.add(id);
  const classes = new Map<string, TestClass>();
  const history = new Map<string, string>();
  for (const id of [...universe].sort()) {
    const before = collected.without.map((r) => outcomeIn(r, id));
    const after = collected.with.map((r) => outcomeIn(r, id));
    classes.set(id, classifyTest(before, after));
    history.set(id, `without the reference: ${before.join(", ")}; with it: ${after.join(", ")}`);
  }
  return { classes, history };
}

/** Compares what was observed with the declared lists and proposes lists for `--write`. */
function judge(
  task: LoadedTask,
  mangle: (id: string) => string,
  report: QualifyReport,
  classes: Map<string, TestClass>,
  history: Map<string, string>,
): void {
  // Declared ids are matched to observed ones by the runner's JUnit mangling too (a different rootdir spelling).
  const byKey = new Map([...classes.keys()].map((id) => [mangle(id), id]));
  const canonical = (id: string) => (classes.has(id) ? id : (byKey.get(mangle(id)) ?? id));
  const declared = { fail_to_pass: task.verifier.fail_to_pass.map(canonical), pass_to_pass: task.verifier.pass_to_pass.map(canonical) };
  const cmp = compareWithDeclared(classes, declared, (id) => history.get(id) ?? "never reported");
  report.problems.push(...cmp.problems);
  report.differences.push(...cmp.differences);
  const ids = (c: TestClass) => [...classes].filter(([, k]) => k === c).map(([id]) => id);
  report.observed = { fail_to_pass: ids("F2P"), pass_to_pass: ids("P2P").length, unstable: ids("unstable"), other: ids("other") };
  if (report.observed.fail_to_pass.length > 0) report.proposed = rewrittenLists(classes, declared);
}

/**
 * Executable qualification of one task: the whole test suite runs `runs` times on base + tests.patch
 * and `runs` times on base + every reference stage + tests.patch, each in a fresh checkout; every
 * test is classified (F2P, P2P, unstable, other) and the result compared with the declared lists.
 * A run that cannot be trusted (it stopped at collection, collected nothing, crashed) ends the
 * qualification with a problem and no proposed lists.
 */
export async function qualifyTask(dataset: Dataset, task: LoadedTask, opts: QualifyOptions = {}): Promise<QualifyReport> {
  const started = Date.now();
  const report = emptyReport(task);
  const log = (t: string) => {
    if (opts.logFile) appendFileSync(opts.logFile, t);
  };
  if (opts.logFile) writeFileSync(opts.logFile, `qualification of ${task.id} at ${new Date().toISOString()}\n`);
  const work = mkdtempSync(join(tmpdir(), "switch-swe-qualify-"));
  try {
    const base = { dataset, task, work, report, log, only: opts.suite === "touched" ? touchedTestModules(dataset, task) : null };
    const ctx: QualifyContext = { ...base, env: lazyEnvironment(base, opts.setupTimeoutMs ?? 30 * 60_000) };
    const collected = await collectRuns(ctx, opts.runs ?? 3);
    if (collected) {
      const { classes, history } = classifyAll(collected, report);
      judge(task, testRunnerOf(dataset, task).mangle, report, classes, history);
    }
  } catch (e) {
    report.problems.push(`qualification failed: ${(e as Error).message}`);
  } finally {
    rmSync(work, { recursive: true, force: true, maxRetries: 3 });
  }
  report.qualified = report.problems.length === 0;
  report.duration_ms = Date.now() - started;
  return report;
}
