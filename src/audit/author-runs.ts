import { passed, stateRun } from "./state-run.js";
import { InputError } from "../core/errors.js";
import { testIdFile } from "../dataset/test-id-paths.js";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import { patchFiles } from "../dataset/patch-files.js";
import { touchedTestModules } from "../qualify/qualify-task.js";
import type { PreparedEnv } from "../testbed/env-cache.js";
import type { NamedPatch } from "../testbed/task-testbed.js";
import type { TestRun } from "../testbed/test-run.js";

/** An authored stage's own text: its reference patch and its regression tests. */
export interface AuthoredPatches {
  patch: string;
  testsPatch: string;
}

/** What the runs before and after the authored patch found. */
export interface AuthoredOutcomes {
  /** Fail at the base and after stage K, pass with the authored patch: the stage's F2P tests. */
  f2p: string[];
  /** Would be F2P but already pass at the base (tasks qualify compares the base with the last stage). */
  passAtBase: string[];
  /** Pass after stage K and fail with the authored patch. */
  broken: string[];
}

const patchName = "the authored patch";

/** The test modules the authored tests patch writes. */
export const authoredModules = (testsPatch: string): string[] =>
  [...new Set(patchFiles(testsPatch).flatMap((f) => (f.to ? [f.to] : [])))].sort();

const ids = (run: TestRun, inModules: readonly string[] | null): string[] =>
  [...run.cases.keys()].filter((id) => inModules === null || inModules.includes(testIdFile(id) ?? "")).sort();

/**
 * Runs the task's touched modules and the authored ones three times, sandboxed as qualification runs
 * them: at the base and after stage `k` with the task's tests and the authored tests, and after stage
 * `k` with the authored patch too. A patch that does not apply, or a run that cannot be used, is bad
 * input (one line, naming `files.patch` or `files.manifest`).
 */
export async function authoredOutcomes(
  dataset: Dataset,
  task: LoadedTask,
  env: PreparedEnv,
  work: string,
  k: number,
  a: AuthoredPatches,
  files: { manifest: string; patch: string },
): Promise<AuthoredOutcomes> {
  const mine = authoredModules(a.testsPatch);
  const targets = [...new Set([...touchedTestModules(dataset, task), ...mine])].sort();
  const tests: NamedPatch[] = [
    { name: "tests.patch", text: task.testsPatch },
    { name: "authored-tests.patch", text: a.testsPatch },
  ];
  const stages = task.stagePatches.slice(0, k).map((text, i) => ({ name: `stage-${i + 1}.patch`, text }));
  const run = async (name: string, patches: NamedPatch[], only: readonly string[]): Promise<TestRun> => {
    const r = await stateRun(dataset, task, env, work, name, patches, only);
    if (typeof r === "string") {
      // git's reason spans lines; the problem is one.
      const why = r.replace(/\s*\n\s*/g, "; ").replace(/;\s*$/, "");
      if (r.startsWith(`${patchName} does not apply`)) {
        throw new InputError({ file: files.patch, path: "--patch", message: `${why}, after stage ${k}` });
      }
      throw new InputError({ file: files.manifest, path: `tasks.${task.id}`, message: `${name}: ${why}` });
    }
    return r;
  };
  const base = await run("the base with the tests", [...tests], mine);
  const before = await run(`stage ${k} with the tests`, [...stages, ...tests], targets);
  const withPatch = [...stages, { name: patchName, text: a.patch }, ...tests];
  const after = await run(`stage ${k} with the tests and the authored patch`, withPatch, targets);
  const flipped = ids(after, mine).filter((id) => passed(after, id) && !passed(before, id));
  return {
    f2p: flipped.filter((id) => !passed(base, id)),
    passAtBase: flipped.filter((id) => passed(base, id)),
    broken: ids(before, null).filter((id) => passed(before, id) && !passed(after, id)),
  };
}
