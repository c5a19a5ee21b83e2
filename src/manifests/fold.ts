import { InputError } from "../core/errors.js";
import { readJsonWith, writeJsonAtomic } from "../core/json-file.js";
import { testFileMatcher } from "../dataset/file-rules.js";
import { materializeRepo } from "../dataset/repo-cache.js";
import { upstreamDigestsOf } from "./derive.js";
import { datasetOfManifest } from "./materialize.js";
import { isAuthored, taskManifestReadSchema, type ManifestStage, type ManifestTask } from "./task-manifest.js";

export interface FoldOptions {
  manifestFile: string;
  task: string;
  /** 1-based: the stage that joins its neighbour. */
  stage: number;
  /** Where to clone repositories from (`--repo NAME=SRC`), as for materialize. */
  sources?: Record<string, string>;
}

export interface FoldResult {
  task: ManifestTask;
  /** 1-based, in the task as it is now: the stage that took the folded one in. */
  into: number;
  /** The joined stage had a text written for the dataset: it now asks for less than the stage does. */
  textKept: boolean;
}

/**
 * The stages after folding stage `k` (0-based) into its neighbour: the one before, which then ends
 * at its cut, or for the first stage the next, which then starts at the base. The F2P tests of both
 * stay with the joined stage (the requirement→test map holds), and its provenance names both.
 */
function joined(stages: readonly ManifestStage[], k: number): { stages: ManifestStage[]; into: number } {
  const folded = stages[k]!;
  const into = k === 0 ? 1 : k - 1;
  const target = stages[into]!;
  const merged: ManifestStage = {
    ...target,
    ...(k === 0 ? {} : { cut: folded.cut! }),
    tests: k === 0 ? [...folded.tests, ...target.tests] : [...target.tests, ...folded.tests],
    provenance: `${target.provenance}; folded in: ${folded.provenance}`,
  };
  const out = stages.map((s, i) => (i === into ? merged : s)).filter((_, i) => i !== k);
  return { stages: out, into: k === 0 ? 0 : into };
}

/**
 * `datasets fold`: a stage that reading finds is no stage (it changes no behaviour, or only takes back
 * the step before) joins its neighbour, as `tasks mine` folds such steps by rule; the digests are
 * derived again from the repository and the manifest is rewritten. The task must be qualified again.
 */
export async function foldStage(opts: FoldOptions): Promise<FoldResult> {
  const file = opts.manifestFile;
  const manifest = readJsonWith(file, taskManifestReadSchema);
  const i = manifest.tasks.findIndex((t) => t.id === opts.task);
  if (i < 0) throw new InputError({ file, path: "tasks", message: `no task ${opts.task}` });
  const t = manifest.tasks[i]!;
  const k = opts.stage - 1;
  const where = `tasks[${i}].stages`;
  const upstream = t.stages.filter((s) => !isAuthored(s)).length;
  if (k < 0 || k >= t.stages.length)
    throw new InputError({ file, path: where, message: `${t.id} has ${t.stages.length} stage(s): --stage ${opts.stage} is none of them` });
  if (isAuthored(t.stages[k]!))
    throw new InputError({
      file,
      path: `${where}[${k}]`,
      message: `${t.id}: stage ${opts.stage} is benchmark-authored: edit or remove it, it is not folded`,
    });
  if (upstream < 3)
    throw new InputError({
      file,
      path: where,
      message: `${t.id} has ${upstream} upstream stage(s): folding would leave one, so the task is no multi-stage task (take it out instead)`,
    });
  const { stages, into } = joined(t.stages, k);
  const repo = manifest.repos[t.repo]!;
  const gitDir = (await materializeRepo(datasetOfManifest(manifest, "", opts.sources), t.repo)).gitDir;
  const isTest = testFileMatcher(repo);
  const cuts = stages.filter((s) => !isAuthored(s)).map((s) => s.cut!);
  const digests = await upstreamDigestsOf(gitDir, t.base, cuts, isTest);
  digests.stages.forEach((d, j) => (stages[j] = { ...stages[j]!, patch_sha256: d }));
  const task: ManifestTask = { ...t, stages, tests_patch_sha256: digests.tests };
  manifest.tasks[i] = task;
  writeJsonAtomic(file, manifest);
  return { task, into: into + 1, textKept: stages[into]!.text !== undefined };
}
