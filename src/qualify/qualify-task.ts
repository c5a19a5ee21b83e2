import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import { applyExact } from "../testbed/apply-patch.js";
import type { PreparedEnv } from "../testbed/env-cache.js";
import { inScope, mangleNodeId } from "../testbed/pytest-ids.js";
import { locateInifile, testPython } from "../testbed/pytest-runner.js";
import { untrustedRunReason, type TestRun } from "../testbed/test-run.js";
import { describeRun, environmentFor, freshCheckout, runTaskTests } from "../testbed/task-testbed.js";
import { classifyTest, compareWithDeclared, rewrittenLists, type RunOutcome, type TestClass } from "./classify.js";

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
  /** The lists `--write` would declare (or declared). */
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
}

interface CollectedRun {
  run: TestRun;
  outcomes: Map<string, RunOutcome>;
}

/** Runs the whole suite once in a fresh checkout of base + the given patches (applied exactly, in order). */
async function suiteRun(
  dataset: Dataset,
  task: LoadedTask,
  patches: Array<{ name: string; text: string }>,
  scratch: string,
  env: () => Promise<PreparedEnv>,
  log: (t: string) => void,
): Promise<TestRun | string> {
  const checkout = join(scratch, "checkout");
  await freshCheckout(dataset, task, checkout);
  for (const p of patches) {
    if (p.text.trim() === "") continue;
    const file = join(scratch, p.name);
    writeFileSync(file, p.text);
    const err = await applyExact(checkout, file);
    if (err) return `${p.name} does not apply: ${err}`;
  }
  const prepared = await env();
  const inifile = await locateInifile(testPython(prepared.pathPrefix), checkout);
  const run = await runTaskTests(dataset, task, { checkout, scratch, env: prepared, inifile }, null);
  log(describeRun(run));
  return run;
}

/**
 * Executable qualification of one task: the whole test suite runs `runs` times on base + tests.patch
 * and `runs` times on base + every reference stage + tests.patch, each in a fresh checkout; every
 * test is classified (F2P, P2P, unstable, other) and the result compared with the declared lists.
 */
export async function qualifyTask(dataset: Dataset, task: LoadedTask, opts: QualifyOptions = {}): Promise<QualifyReport> {
  const started = Date.now();
  const runs = opts.runs ?? 3;
  const log = (t: string) => {
    if (opts.logFile) appendFileSync(opts.logFile, t);
  };
  if (opts.logFile) writeFileSync(opts.logFile, `qualification of ${task.id} at ${new Date().toISOString()}\n`);
  const report: QualifyReport = {
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
  const work = mkdtempSync(join(tmpdir(), "switch-swe-qualify-"));
  let prepared: PreparedEnv | null = null;
  try {
    const env = async () => {
      if (!prepared) {
        const co = await freshCheckout(dataset, task, join(work, "env-probe"));
        prepared = await environmentFor(dataset, task, co, log, opts.setupTimeoutMs ?? 30 * 60_000);
        report.setup_cached = prepared.cached;
        rmSync(join(work, "env-probe"), { recursive: true, force: true });
      }
      return prepared;
    };
    const states: Array<{ state: SuiteState; patches: Array<{ name: string; text: string }> }> = [
      { state: "without", patches: [{ name: "tests.patch", text: task.testsPatch }] },
      {
        state: "with",
        patches: [...task.stagePatches.map((text, k) => ({ name: `stage-${k + 1}.patch`, text })), { name: "tests.patch", text: task.testsPatch }],
      },
    ];
    const collected: Record<SuiteState, CollectedRun[]> = { without: [], with: [] };
    for (let i = 1; i <= runs; i++) {
      for (const s of states) {
        const scratch = join(work, `${s.state}-${i}`);
        mkdirSync(scratch, { recursive: true });
        log(`\n=== ${s.state} the reference, run ${i} ===\n`);
        const r = await suiteRun(dataset, task, s.patches, scratch, env, log);
        rmSync(scratch, { recursive: true, force: true });
        if (typeof r === "string") {
          report.problems.push(r);
          return finish(report, started);
        }
        report.runs.push({
          state: s.state,
          run: i,
          exit_code: r.exitCode,
          timed_out: r.timedOut,
          result_source: r.source,
          tests: r.cases.size,
          duration_ms: r.durationMs,
        });
        const why = r.timedOut ? `timed out after ${task.verifier.timeout_s} s` : untrustedRunReason(r);
        if (why) {
          report.problems.push(`suite run ${i} ${s.state} the reference: ${why}`);
          return finish(report, started);
        }
        collected[s.state].push({ run: r, outcomes: new Map(r.cases) });
      }
    }
    const universe = new Set<string>();
    for (const c of [...collected.without, ...collected.with]) for (const id of c.run.cases.keys()) universe.add(id);
    const outcome = (c: CollectedRun, id: string): RunOutcome =>
      c.outcomes.get(id) ?? (c.run.collectionErrors.some((scope) => inScope(id, scope)) ? "error" : "absent");
    const classes = new Map<string, TestClass>();
    const history = new Map<string, string>();
    for (const id of [...universe].sort()) {
      const before = collected.without.map((c) => outcome(c, id));
      const after = collected.with.map((c) => outcome(c, id));
      classes.set(id, classifyTest(before, after));
      history.set(id, `without the reference: ${before.join(", ")}; with it: ${after.join(", ")}`);
    }
    // Declared ids are matched to observed ones by pytest's JUnit mangling too (a different rootdir spelling).
    const byKey = new Map([...universe].map((id) => [mangleNodeId(id), id]));
    const canonical = (id: string) => (classes.has(id) ? id : (byKey.get(mangleNodeId(id)) ?? id));
    const declared = {
      fail_to_pass: task.verifier.fail_to_pass.map(canonical),
      pass_to_pass: task.verifier.pass_to_pass.map(canonical),
    };
    const cmp = compareWithDeclared(classes, declared, (id) => history.get(id) ?? "never reported");
    report.problems.push(...cmp.problems);
    report.differences.push(...cmp.differences);
    const ids = (c: TestClass) => [...classes].filter(([, k]) => k === c).map(([id]) => id);
    report.observed = { fail_to_pass: ids("F2P"), pass_to_pass: ids("P2P").length, unstable: ids("unstable"), other: ids("other") };
    if (report.observed.fail_to_pass.length > 0) report.proposed = rewrittenLists(classes, declared);
    return finish(report, started);
  } catch (e) {
    report.problems.push(`qualification failed: ${(e as Error).message}`);
    return finish(report, started);
  } finally {
    rmSync(work, { recursive: true, force: true, maxRetries: 3 });
  }
}

function finish(report: QualifyReport, started: number): QualifyReport {
  report.qualified = report.problems.length === 0;
  report.duration_ms = Date.now() - started;
  return report;
}
