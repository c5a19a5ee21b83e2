import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import type { PreparedEnv } from "../testbed/env-cache.js";
import { collectionWords, conftestWords } from "../testbed/runner-words.js";
import { checkoutWithPatches, runWholeSuite } from "../testbed/task-testbed.js";
import { suiteRunProblem, type TestRun } from "../testbed/test-run.js";

/** Why the base cannot be mined (in pytest's words), with the run it took; null: it imports and collects. */
export interface BaseCollection {
  problem: string | null;
  testRuns: number;
}

/**
 * The base as shipped (no tests.patch) must import and collect the test modules it holds; else every
 * F2P id measures a broken import, not a request (lark-40148d310c: most of its 580). A module that
 * of the candidate that fails collection at the base *with* tests.patch usually imports what the
 * stages add, so only those modules are run again without it, and only when there are some: a sound
 * base costs no run.
 */
export async function baseCollection(
  dataset: Dataset,
  task: LoadedTask,
  env: PreparedEnv,
  work: string,
  withTests: TestRun,
  testFiles: readonly string[],
): Promise<BaseCollection> {
  // The candidate's own test modules (or a directory holding one): another module that cannot be
  // collected (an optional extension not installed) is reported, not a reason to refuse the base.
  const suspects = withTests.collectionErrors.filter((s) => testFiles.some((f) => f === s || (s.endsWith("/") && f.startsWith(s))));
  if (suspects.length === 0) return { problem: null, testRuns: 0 };
  const scratch = join(work, "pristine");
  mkdirSync(scratch, { recursive: true });
  try {
    const checkout = join(scratch, "checkout");
    const co = await checkoutWithPatches(dataset, task, checkout, scratch, []);
    if (typeof co === "string") return { problem: `the base cannot be checked out: ${co}`, testRuns: 0 };
    // Modules the tests patch creates are not the base's: their failure there is the normal "not yet".
    const only = suspects.filter((f) => existsSync(join(checkout, f)));
    if (only.length === 0) return { problem: null, testRuns: 0 };
    const run = await runWholeSuite(dataset, task, checkout, scratch, env, only);
    return { problem: run.timedOut ? null : problemOf(run), testRuns: 1 };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function problemOf(run: TestRun): string | null {
  const output = `${run.stdout}\n${run.stderr}`;
  const conftest = conftestWords(output);
  if (conftest) return `at the base as shipped, the tests cannot be loaded: ${conftest}`;
  const why = suiteRunProblem(run);
  if (why) return `at the base as shipped, the test run cannot be used: ${why}`;
  const [first, ...rest] = run.collectionErrors;
  if (first === undefined) return null;
  const more = rest.length > 0 ? ` (and ${rest.length} more: ${rest.slice(0, 3).join(", ")})` : "";
  return `at the base as shipped (without the tests patch), ${first} cannot be collected: ${collectionWords(run.stdout, first) ?? "pytest gave no reason"}${more}`;
}
