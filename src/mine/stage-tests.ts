import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { changingIds } from "../dataset/generated-ids.js";
import { isTestModule } from "../dataset/test-id-paths.js";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import type { PreparedEnv } from "../testbed/env-cache.js";
import { inScope } from "../testbed/pytest-ids.js";
import { collectionInterruption } from "../testbed/pytest-output.js";
import { checkoutWithPatches, environmentFor, freshCheckout, runWholeSuite } from "../testbed/task-testbed.js";
import { suiteRunProblem, type TestRun } from "../testbed/test-run.js";

/** Why a candidate is rejected; the keys are counted in the mining report. */
export const rejectReasons = [
  "no source change",
  "several features",
  "no F2P",
  "timed out",
  "fewer than two stages with tests",
  "unstable",
  "collection failure",
  "untrusted test run",
  "environment cannot be built",
  "patch does not apply",
] as const;
export type RejectReason = (typeof rejectReasons)[number];

export type StageVerdict = { ok: true; stageTests: string[][]; p2p: string[]; unstable: string[] } | { ok: false; reason: RejectReason; detail: string };

type Outcome = "pass" | "fail" | "skip";

function outcomeIn(run: TestRun, id: string): Outcome {
  const o = run.cases.get(id) ?? (run.collectionErrors.some((s) => inScope(id, s)) ? "error" : undefined);
  return o === "passed" ? "pass" : o === "skipped" ? "skip" : "fail";
}

/** Which tests a candidate's runs include: the whole suite, or only the test files its steps touch. */
export type MineSuite = "whole" | "touched";

async function prepareEnv(dataset: Dataset, task: LoadedTask, work: string, log: (t: string) => void): Promise<PreparedEnv | StageVerdict> {
  try {
    const co = await freshCheckout(dataset, task, join(work, "env-probe"));
    return await environmentFor(dataset, task, co, log, 30 * 60_000);
  } catch (e) {
    return { ok: false, reason: "environment cannot be built", detail: (e as Error).message };
  }
}

/**
 * Adds `runs` runs of the suite (or of `only` these test files) after stages 1..K (K = 0..k), on
 * base + tests.patch, to `states[K]`; a rejection when a run cannot be trusted.
 */
async function runStates(dataset: Dataset, task: LoadedTask, env: PreparedEnv, work: string, runs: number, only: readonly string[] | null, states: TestRun[][]): Promise<StageVerdict | null> {
  for (let k = 0; k <= task.stagePatches.length; k++) {
    const patches = [...task.stagePatches.slice(0, k).map((text, i) => ({ name: `stage-${i + 1}.patch`, text })), { name: "tests.patch", text: task.testsPatch }];
    const list = (states[k] ??= []);
    for (let i = 0; i < runs; i++) {
      const scratch = join(work, `k${k}-r${list.length}`);
      mkdirSync(scratch, { recursive: true });
      const co = await checkoutWithPatches(dataset, task, join(scratch, "checkout"), scratch, patches);
      if (typeof co === "string") return { ok: false, reason: "patch does not apply", detail: co };
      const files = only === null ? null : only.filter((f) => existsSync(join(scratch, "checkout", f)));
      const run = await runWholeSuite(dataset, task, join(scratch, "checkout"), scratch, env, files);
      rmSync(scratch, { recursive: true, force: true });
      const why = run.timedOut ? "timed out" : suiteRunProblem(run);
      // A module that cannot be imported before the stages is a normal "not collected yet": its tests fail there.
      if (why) {
        const reason = run.timedOut ? "timed out" : collectionInterruption(run.stdout) || run.cases.size === 0 ? "collection failure" : "untrusted test run";
        return { ok: false, reason, detail: `after ${k} stage(s): ${why}` };
      }
      list.push(run);
    }
  }
  return null;
}

/** One outcome per state when every run of the state agrees, else null (unstable). */
function stableOutcomes(states: TestRun[][], id: string): Array<Outcome | null> {
  return states.map((runs) => {
    const o = runs.map((r) => outcomeIn(r, id));
    return o.every((x) => x === o[0]) ? o[0]! : null;
  });
}

/** Each stage's tests (see `judge`), over `runs` runs per state; `screen` may reject after the first run. */
export async function stageTests(
  dataset: Dataset,
  task: LoadedTask,
  work: string,
  runs: number,
  testFiles: readonly string[],
  suite: MineSuite,
  log: (t: string) => void,
  screen: (verdict: StageVerdict & { ok: true }) => Promise<StageVerdict | null> = async () => null,
): Promise<{ verdict: StageVerdict; testRuns: number }> {
  const states: TestRun[][] = [];
  const done = (verdict: StageVerdict) => ({ verdict, testRuns: states.reduce((n, list) => n + list.length, 0) });
  const modules = testFiles.filter(isTestModule);
  if (suite === "touched" && modules.length === 0) return done({ ok: false, reason: "no F2P", detail: "the steps touch no test module" });
  const env = await prepareEnv(dataset, task, work, log);
  if ("ok" in env) return done(env);
  const only = suite === "touched" ? modules : null;
  // One run per state first: the tests stable over every run are a subset of what one run shows, so
  // a candidate that one run rejects (most of them) costs a third of the runs.
  const first = (await runStates(dataset, task, env, work, 1, only, states)) ?? judge(task, states, testFiles);
  if (!first.ok || runs === 1) return done(first);
  const screened = await screen(first);
  if (screened) return done(screened);
  return done((await runStates(dataset, task, env, work, runs - 1, only, states)) ?? judge(task, states, testFiles));
}

/**
 * Which tests each stage makes pass: stage K's tests fail (or are not collected) before stage K
 * and pass after stages 1..K, in every run, and keep passing through the last stage. P2P: tests
 * of the files tests.patch touches that pass in every state.
 */
function judge(task: LoadedTask, states: TestRun[][], testFiles: readonly string[]): StageVerdict {
  const k = task.stagePatches.length;
  const changing = new Set(changingIds([...states[0]!.map((r) => new Set(r.cases.keys()))], [...states[k]!.map((r) => new Set(r.cases.keys()))]));
  const universe = new Set<string>();
  for (const list of states) for (const r of list) for (const id of r.cases.keys()) if (!changing.has(id)) universe.add(id);
  const stage: string[][] = Array.from({ length: k }, () => []);
  const p2p: string[] = [];
  const unstable: string[] = [];
  for (const id of [...universe].sort()) {
    const o = stableOutcomes(states, id);
    if (o[0] === null || o[k] === null) {
      unstable.push(id);
      continue;
    }
    if (o[0] === "pass" && o.every((x) => x === "pass")) {
      if (testFiles.includes(id.split("::")[0]!)) p2p.push(id);
      continue;
    }
    if (o[0] !== "fail" || o[k] !== "pass") continue;
    let first = k;
    while (first > 1 && o[first - 1] === "pass") first--;
    stage[first - 1]!.push(id);
  }
  if (stage.every((s) => s.length === 0)) {
    return unstable.length > 0 ? { ok: false, reason: "unstable", detail: `no stable fail-to-pass test; unstable: ${unstable.slice(0, 5).join(", ")}` } : { ok: false, reason: "no F2P", detail: "no test fails before the stages and passes after them" };
  }
  return { ok: true, stageTests: stage, p2p, unstable };
}

/**
 * Stages without tests of their own are folded into the next stage (trailing ones into the
 * previous): returns the kept cut indices (0-based, into the candidate's cuts) and each kept
 * stage's tests.
 */
export function foldStages(stageTestsList: readonly string[][]): Array<{ cut: number; tests: string[] }> {
  const out: Array<{ cut: number; tests: string[] }> = [];
  stageTestsList.forEach((tests, i) => {
    if (tests.length > 0) out.push({ cut: i, tests: [...tests] });
  });
  if (out.length > 0) out[out.length - 1]!.cut = stageTestsList.length - 1;
  return out;
}
