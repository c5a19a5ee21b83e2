import { join } from "node:path";
import type { ConfineBackend } from "../confine/backend.js";
import type { Limits } from "../confine/limits.js";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import type { TestStatus } from "../formats/verdict.js";
import type { PreparedEnv } from "../testbed/env-cache.js";
import { describeRun, runTaskTests, testCommandOf, testRunnerOf } from "../testbed/task-testbed.js";
import { requiredStatuses, untrustedRunReason, type TestRun } from "../testbed/test-run.js";
import { canaryReason, judgeCanaries, selectionWith, type CanaryRecord } from "./canaries.js";
import { plantCanaries, type Planting } from "./real-canaries.js";

/**
 * One test run of the required tests with canaries planted beside them, and the confirming second
 * run: no verdict rests on one test process. A run that would resolve the task runs its fail-to-pass
 * tests again in a fresh process, with canaries drawn anew from the pristine test files (other
 * mutants, other names, other swaps), so a forgery that guesses which tests are copies must guess
 * right twice, and a first process whose passes the second does not repeat is not believed.
 */

export interface PlantedRunContext {
  dataset: Dataset;
  task: LoadedTask;
  confine?: ConfineBackend;
  limits?: Limits;
}

export interface PlantedBed {
  checkout: string;
  env: PreparedEnv;
  python: string;
  inifile: string | null;
}

export interface PlantedRun {
  run: TestRun;
  /** The run's statuses of the required tests, by their required ids. */
  tests: Record<string, TestStatus>;
  record: CanaryRecord;
  /** Why the run is not believed (its own channels, or canaries that contradict the harness), or null. */
  distrust: string | null;
  planting: Planting | null;
}

/** The required tests that ran under a copy's name this time (a log line, or nothing). */
function renamedLine(required: readonly string[], runIds: readonly string[]): string {
  const moved = required.flatMap((id, i) => (runIds[i] !== id ? [`${id} as ${runIds[i]!.split("::").slice(1).join("::")}`] : []));
  return moved.length > 0 ? `required tests run under another name: ${moved.join(", ")}\n` : "";
}

/** Runs `f2p` and `p2p` with canaries planted in their files (in the checkout, after the held-out tests). */
export async function plantedRun(
  ctx: PlantedRunContext,
  bed: PlantedBed,
  dir: string,
  f2p: readonly string[],
  p2p: readonly string[],
  log: (t: string) => void,
): Promise<PlantedRun> {
  const required = [...new Set([...f2p, ...p2p])];
  // A command that ignores `{tests}` chooses its own tests: canaries it never selects would be missing.
  const planting = testCommandOf(ctx.dataset, ctx.task).includes("{tests}")
    ? await plantCanaries(bed.checkout, bed.python, f2p, p2p, testRunnerOf(ctx.dataset, ctx.task))
    : null;
  const runIds = required.map((id) => planting?.runIds.get(id) ?? id);
  if (planting) log(`planted: ${planting.notes.join("; ") || "nothing (no required test file)"}\n${renamedLine(required, runIds)}`);
  const bedRun = {
    checkout: bed.checkout,
    scratch: dir,
    env: bed.env,
    inifile: bed.inifile,
    ...(ctx.confine ? { confine: ctx.confine } : {}),
    ...(ctx.limits ? { limits: ctx.limits } : {}),
  };
  const run = await runTaskTests(ctx.dataset, ctx.task, bedRun, selectionWith(runIds, planting?.canaries ?? []));
  const seen = requiredStatuses(run, runIds);
  const tests = Object.fromEntries(required.map((id, i) => [id, seen[runIds[i]!]!]));
  const record = judgeCanaries(run, planting?.canaries ?? [], tests);
  const distrust = untrustedRunReason(run) ?? (run.timedOut ? null : canaryReason(record));
  // The log names the required tests pytest did not find by their required ids; copies of them it did
  // not find either (a gone parameter case) were judged above, and are no one's status.
  const notFound = required.filter((id, i) => run.notFound.includes(runIds[i]!));
  return { run: { ...run, notFound }, tests, record, distrust, planting };
}

export function plantedLine(record: CanaryRecord): string {
  return `planted tests (outcomes only the harness knows): ${record.tests.map((t) => `${t.id} ${t.expected}${t.of !== undefined ? ` (copy of ${t.of})` : ""}: ${t.reported}`).join(", ") || "none (no required test file, or a test command without {tests})"}\n`;
}

export interface SecondRun {
  /** Why the pair of runs is not believed, or null. */
  distrust: string | null;
  /** Fail-to-pass tests the second run did not pass, with its status. */
  disagree: Record<string, TestStatus>;
  record: CanaryRecord;
}

/**
 * The fail-to-pass tests again in a fresh process, with fresh canaries in the pristine test files.
 * Only for a first run that would resolve the task (anything else is unresolved already).
 */
export async function secondRun(
  ctx: PlantedRunContext,
  bed: PlantedBed,
  dir: string,
  first: PlantedRun,
  log: (t: string) => void,
): Promise<SecondRun> {
  const f2p = [...new Set(ctx.task.verifier.fail_to_pass)];
  first.planting?.restore();
  log("second run (fail-to-pass tests in a fresh process, canaries drawn anew):\n");
  // Its own scratch (HOME, TMPDIR, report): nothing the first process left there is read again.
  const again = await plantedRun(ctx, bed, join(dir, "second-run"), f2p, [], log);
  log(describeRun(again.run));
  log(plantedLine(again.record));
  const disagree = Object.fromEntries(f2p.filter((id) => again.tests[id] !== "passed").map((id) => [id, again.tests[id]!]));
  const distrust = again.distrust === null ? null : `in the second run, ${again.distrust}`;
  return { distrust, disagree, record: again.record };
}

/** Both runs' canaries in one record (trusted only if both were). */
export function mergedRecord(a: CanaryRecord, b: CanaryRecord): CanaryRecord {
  const problems = [...(a.problems ?? []), ...(b.problems ?? [])];
  return { tests: [...a.tests, ...b.tests], trusted: a.trusted && b.trusted, ...(problems.length > 0 ? { problems } : {}) };
}
