import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { testIdFile } from "../dataset/test-id-paths.js";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import type { PreparedEnv } from "../testbed/env-cache.js";
import { inScope } from "../testbed/pytest-ids.js";
import { checkoutWithPatches, runWholeSuite, type NamedPatch } from "../testbed/task-testbed.js";
import { suiteRunProblem, type TestRun } from "../testbed/test-run.js";

/** Whether a test passed in a run (and its module collected). */
export const passed = (run: TestRun, id: string): boolean =>
  run.cases.get(id) === "passed" && !run.collectionErrors.some((s) => inScope(id, s));

/** Why a state has no run: no test module the task touches exists there (at the base, every one is new). */
export const NO_MODULE = "none of the task's test modules exists";

/**
 * One sandboxed run on the base with `patches` of `targets` (test modules, or test ids) whose module
 * exists there; a string says why it cannot be used.
 */
export async function stateRun(
  dataset: Dataset,
  task: LoadedTask,
  env: PreparedEnv,
  work: string,
  name: string,
  patches: NamedPatch[],
  targets: readonly string[],
): Promise<TestRun | string> {
  const scratch = join(work, name);
  mkdirSync(scratch, { recursive: true });
  try {
    const co = await checkoutWithPatches(dataset, task, join(scratch, "checkout"), scratch, patches);
    if (typeof co === "string") return co;
    const only = targets.filter((f) => existsSync(join(scratch, "checkout", testIdFile(f) ?? f)));
    if (only.length === 0) return NO_MODULE;
    const run = await runWholeSuite(dataset, task, join(scratch, "checkout"), scratch, env, only);
    return (run.timedOut ? `timed out after ${task.verifier.timeout_s} s` : suiteRunProblem(run)) ?? run;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
