import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { changingIds } from "../dataset/generated-ids.js";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import type { PreparedEnv } from "../testbed/env-cache.js";
import { testPython } from "../testbed/launcher-files.js";
import { conftestWords } from "../testbed/runner-words.js";
import { baseCollection } from "./base-collection.js";
import { gatedByOthers, importGate } from "./import-gated.js";
import { environmentVerdict, failingModules, outcomeIn, uncollected, type Outcome } from "./module-failures.js";
import { checkoutWithPatches, environmentFor, freshCheckout, isTestModuleOf, runWholeSuite } from "../testbed/task-testbed.js";
import { suiteRunProblem, type TestRun } from "../testbed/test-run.js";

/** Why a candidate is rejected; the keys are counted in the mining report. */
export const rejectReasons = [
  "no source change",
  "several features",
  "no F2P",
  /** The tests cannot be loaded on this interpreter and packages (an import, a conftest): the runner's words in the detail. */
  "environment",
  /** The base as shipped cannot import or collect its own test modules: every F2P id would measure that. */
  "base cannot be collected",
  "timed out",
  "fewer than two substantive stages",
  /** Retired with the stage rule of issue 28 (stages needed a test of their own); still read in older reports. */
  "fewer than two stages with tests",
  "unstable",
  "collection failure",
  "untrusted test run",
  "environment cannot be built",
  "patch does not apply",
] as const;
export type RejectReason = (typeof rejectReasons)[number];

/** A touched test module whose tests fail in every state: reported, never dropped in silence. */
export interface FailingModule {
  module: string;
  reason: string;
}

export type StageVerdict =
  | {
      ok: true;
      stageTests: string[][];
      p2p: string[];
      unstable: string[];
      /** Old, unchanged tests that fail before the stages only because their module cannot be imported there: no F2P. */
      regression: string[];
      failingModules: FailingModule[];
      /** F2P tests whose module could not be imported before their stage: the stage may be where an import arrives, not their behaviour. */
      importGated: ImportGated[];
    }
  | { ok: false; reason: RejectReason; detail: string; failingModules?: FailingModule[] };

/** An F2P test mapped to stage K > 1 whose module was not collected after stage K-1, with pytest's words there. */
export interface ImportGated {
  test: string;
  stage: number;
  cause: string;
}

/** Which of these ids (failing before the stages only by their module's collection error) are the tests' old, unchanged code. */
export type OldTests = (python: string, ids: string[]) => Promise<Set<string>>;

/** The source of each id's own test function (absent when not found), read by the tests' interpreter. */
export type TestCode = (python: string, ids: string[]) => Promise<Map<string, string>>;

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
 * Adds `runs` runs of the suite (or of `only` these test files) after stages 1..K (K = from..to), on
 * base + tests.patch, to `states[K]`; a rejection when a run cannot be trusted.
 */
async function runStates(
  dataset: Dataset,
  task: LoadedTask,
  env: PreparedEnv,
  work: string,
  runs: number,
  only: readonly string[] | null,
  states: TestRun[][],
  from = 0,
  to = task.stagePatches.length,
): Promise<StageVerdict | null> {
  for (let k = from; k <= to; k++) {
    const patches = [
      ...task.stagePatches.slice(0, k).map((text, i) => ({ name: `stage-${i + 1}.patch`, text })),
      { name: "tests.patch", text: task.testsPatch },
    ];
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
        // A conftest that cannot be imported stops pytest before any test: the environment, in pytest's words.
        const conftest = run.timedOut ? null : conftestWords(`${run.stdout}\n${run.stderr}`);
        if (conftest) return { ok: false, reason: "environment", detail: `after ${k} stage(s): the tests cannot be loaded: ${conftest}` };
        const reason = run.timedOut
          ? "timed out"
          : run.interrupted !== null || run.cases.size === 0
            ? "collection failure"
            : "untrusted test run";
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

/**
 * Tests that pass after the stages but were not collected before them in any run: candidates for
 * old tests whose module merely imports something new (the caller decides from their code).
 */
function importOnly(states: TestRun[][]): string[] {
  const k = states.length - 1;
  const ids = new Set<string>();
  for (const r of states[k]!) for (const [id, o] of r.cases) if (o === "passed") ids.add(id);
  return [...ids]
    .filter((id) => states[0]!.every((r) => uncollected(r, id)) && states[k]!.every((r) => r.cases.get(id) === "passed"))
    .sort();
}

/** Each stage's tests (see `judge`), over `runs` runs per state; after the first run of each state, a candidate with no F2P costs no more runs. */
export async function stageTests(
  dataset: Dataset,
  task: LoadedTask,
  work: string,
  runs: number,
  testFiles: readonly string[],
  suite: MineSuite,
  log: (t: string) => void,
  oldTests: OldTests = async () => new Set(),
  testCode: TestCode = async () => new Map(),
): Promise<{ verdict: StageVerdict; testRuns: number }> {
  const states: TestRun[][] = [];
  let extraRuns = 0;
  const done = (verdict: StageVerdict) => ({ verdict, testRuns: extraRuns + states.reduce((n, list) => n + list.length, 0) });
  const isModule = isTestModuleOf(dataset, task);
  const modules = testFiles.filter(isModule);
  if (suite === "touched" && modules.length === 0) return done({ ok: false, reason: "no F2P", detail: "the steps touch no test module" });
  const env = await prepareEnv(dataset, task, work, log);
  if ("ok" in env) return done(env);
  const only = suite === "touched" ? modules : null;
  const python = testPython(env.pathPrefix);
  const judged = async () =>
    gatedByOthers(judge(task, states, testFiles, await oldTests(python, importOnly(states)), isModule), python, testCode);
  // One run per state first: the tests stable over every run are a subset of what one run shows, so
  // a candidate that one run rejects costs a third of the runs.
  const base = async (): Promise<StageVerdict | null> => {
    const b = await baseCollection(dataset, task, env, work, states[0]![0]!, testFiles);
    extraRuns += b.testRuns;
    return b.problem === null ? null : { ok: false, reason: "base cannot be collected", detail: b.problem };
  };
  // The base first: a base that cannot import or collect its own test modules is refused before the stages run.
  const first =
    (await runStates(dataset, task, env, work, 1, only, states, 0, 0)) ??
    (await base()) ??
    (await runStates(dataset, task, env, work, 1, only, states, 1)) ??
    (await judged());
  if (!first.ok || runs === 1) return done(first);
  return done((await runStates(dataset, task, env, work, runs - 1, only, states)) ?? (await judged()));
}

/**
 * Which tests each stage makes pass: stage K's tests fail (or are not collected) before stage K
 * and pass after stages 1..K, in every run, and keep passing through the last stage. A stage may
 * make none pass; the task needs at least one. `old` (tests whose module was not collected before
 * the stages and whose own code tests.patch leaves unchanged) are regression tests, neither F2P nor
 * P2P, since they fail at the base. P2P: tests of the files
 * tests.patch touches that pass in every state.
 */
function judge(
  task: LoadedTask,
  states: TestRun[][],
  testFiles: readonly string[],
  old: ReadonlySet<string>,
  isModule: (path: string) => boolean,
): StageVerdict {
  const k = task.stagePatches.length;
  const changing = new Set(
    changingIds([...states[0]!.map((r) => new Set(r.cases.keys()))], [...states[k]!.map((r) => new Set(r.cases.keys()))]),
  );
  const universe = new Set<string>();
  for (const list of states) for (const r of list) for (const id of r.cases.keys()) if (!changing.has(id)) universe.add(id);
  const stage: string[][] = Array.from({ length: k }, () => []);
  const p2p: string[] = [];
  const unstable: string[] = [];
  const regression: string[] = [];
  const gated: ImportGated[] = [];
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
    // An old unchanged test that fails at the base is neither F2P (it asks for nothing new) nor P2P
    // (a P2P passes at the base; `tasks qualify` refuses one that does not).
    if (old.has(id)) {
      regression.push(id);
      continue;
    }
    // The earliest stage from which it passes in every run through the last (docs/mining.md).
    let first = k;
    while (first > 1 && o[first - 1] === "pass") first--;
    stage[first - 1]!.push(id);
    const gate = first > 1 ? importGate(states[first - 1]!, id) : null;
    if (gate !== null) gated.push({ test: id, stage: first, cause: gate });
  }
  const modules = testFiles.filter(isModule);
  const failing = failingModules(states, modules, universe);
  if (stage.every((s) => s.length === 0)) {
    const environment = environmentVerdict(states, modules, universe, failing);
    if (environment) return environment;
    if (unstable.length > 0)
      return {
        ok: false,
        reason: "unstable",
        detail: `no stable fail-to-pass test; unstable: ${unstable.slice(0, 5).join(", ")}`,
        failingModules: failing,
      };
    const olds =
      regression.length > 0
        ? `; ${regression.length} old unchanged test(s) fail before the stages only because their module cannot be imported there`
        : "";
    return { ok: false, reason: "no F2P", detail: `no test fails before the stages and passes after them${olds}`, failingModules: failing };
  }
  return { ok: true, stageTests: stage, p2p: p2p.sort(), unstable, regression, failingModules: failing, importGated: gated };
}
