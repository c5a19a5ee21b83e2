import { join } from "node:path";
import { gitTry } from "../core/git.js";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import type { ManifestRepo, ManifestTask } from "../manifests/task-manifest.js";
import { deriveTask } from "../manifests/materialize.js";
import { functionKey, functionRanges, patchTouches, unchangedIds } from "./old-tests.js";
import { stageTests, type MineSuite, type OldTests, type StageVerdict, type TestCode } from "./stage-tests.js";

/**
 * What the test runs of one candidate need besides its repository: the draft manifest entry (base, cuts,
 * digests of the patches), the test files its steps touch, and the mining settings. This is what travels
 * to a worker when candidates are qualified on a queue (`tasks mine --queue`).
 */
export interface CandidateTestInput {
  entry: ManifestTask;
  testFiles: string[];
  runs: number;
  suite: MineSuite;
}

export interface CandidateTestOutcome {
  verdict: StageVerdict;
  testRuns: number;
}

/** Runs a candidate's tests: here (`runCandidateTests`), or as a job on a queue's workers. */
export type CandidateTester = (input: CandidateTestInput) => Promise<CandidateTestOutcome>;

/** What a tester may need of the mining run (a queue ships the repository once, from here). */
export interface MineRunFacts {
  out: string;
  /** The repository's name in the dataset. */
  name: string;
  /** The mining dataset (one repository; its `git` the local path or URL it is read from). */
  dataset: Dataset;
  /** The repository as the manifest records it (source and test rules, environment with set-up commit). */
  repo: ManifestRepo;
  /** The newest commit of the range: every candidate's commits are reachable from it. */
  tip: string;
  candidates: number;
}

/** Where candidates' tests run instead of this process: opened once the candidates are known. */
export interface MineBackend {
  open(
    facts: MineRunFacts,
    onLine: (line: string) => void,
  ): Promise<{ test: CandidateTester; jobs: number; close: () => Promise<void>; withdraw: () => Promise<void> }>;
}

/**
 * Old tests among `ids` (not collected before the stages): those whose function tests.patch leaves
 * unchanged, read at the last cut by the tests' own interpreter.
 */
function oldTestsOf(gitDir: string, last: string, testsPatch: string): OldTests {
  return async (python, ids) => {
    if (ids.length === 0) return new Set();
    const files = new Map<string, string>();
    for (const f of new Set(ids.map((id) => id.split("::")[0]!))) {
      const r = await gitTry(["--git-dir", gitDir, "show", `${last}:${f}`]);
      if (r.code === 0 && f.endsWith(".py")) files.set(f, r.stdout);
    }
    return new Set(unchangedIds(ids, patchTouches(testsPatch), await functionRanges(python, files)));
  };
}

/** Reads test files at the last cut, as the tests' interpreter sees them: each id's own function (decorators included), or none. */
function testCodeOf(gitDir: string, last: string): TestCode {
  return async (python, ids) => {
    const files = new Map<string, string>();
    for (const f of new Set(ids.map((id) => id.split("::")[0]!))) {
      const r = await gitTry(["--git-dir", gitDir, "show", `${last}:${f}`]);
      if (r.code === 0 && f.endsWith(".py")) files.set(f, r.stdout);
    }
    const ranges = await functionRanges(python, files);
    const out = new Map<string, string>();
    for (const id of ids) {
      const k = functionKey(id);
      const range = k ? ranges.get(k.file)?.[k.key] : undefined;
      if (k && range)
        out.set(
          id,
          files
            .get(k.file)!
            .split("\n")
            .slice(range[0] - 1, range[1])
            .join("\n"),
        );
    }
    return out;
  };
}

/**
 * The test runs of one candidate (every state, `runs` times) and the verdict on its stages, in `work`.
 * The patches are derived from the repository and must match the entry's digests: a worker that derives
 * other patches than the coordinator (another repository under the same name) refuses to judge.
 */
export async function runCandidateTests(
  dataset: Dataset,
  gitDir: string,
  repo: ManifestRepo,
  work: string,
  input: CandidateTestInput,
): Promise<CandidateTestOutcome> {
  const { entry } = input;
  const draft = await deriveTask(gitDir, repo, entry);
  if (draft.mismatches.length > 0)
    throw new Error(`the repository gives other patches than the candidate's: ${draft.mismatches.join("; ")}`);
  const task: LoadedTask = { ...draft.spec, dir: join(work, "tasks", entry.id), stagePatches: draft.stages, testsPatch: draft.testsPatch };
  const last = entry.stages[entry.stages.length - 1]!.cut;
  // Mined stages are commits (only benchmark-authored stages, written later, have none).
  if (last === undefined) throw new Error(`${entry.id}: the last stage of a mined candidate names no commit`);
  return stageTests(
    dataset,
    task,
    work,
    input.runs,
    input.testFiles,
    input.suite,
    () => {},
    oldTestsOf(gitDir, last, draft.testsPatch),
    testCodeOf(gitDir, last),
  );
}
