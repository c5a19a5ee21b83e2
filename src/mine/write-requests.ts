import { existsSync } from "node:fs";
import { join } from "node:path";
import { readJson, readJsonWith, writeJsonAtomic } from "../core/json-file.js";
import { loadDataset, type LoadedTask } from "../dataset/load.js";
import { materializeRepo } from "../dataset/repo-cache.js";
import { taskManifestReadSchema, type ManifestTask, type TaskManifest } from "../manifests/task-manifest.js";
import type { WriterRecord } from "../dataset/writer-record.js";
import { privateNamesAtStages } from "./private-names.js";
import { WriterFailed, writeStageRequest, type StageWritten, type Writer } from "./request-writer.js";

/**
 * `tasks write-requests` (and `tasks mine --writer-model`): asks a writer model for each stage's
 * request text, in order, and records every outcome at once (task.json and, when the dataset has
 * one, manifest.json, each rewritten atomically), so a run stopped anywhere resumes where it stopped.
 * Stages that already have a writer record or a text written by hand are left alone.
 */

export interface WriteSummary {
  written: number;
  refused: number;
  /** Stages left alone: written or refused before, or written by hand. */
  skipped: number;
  /** Why the run stopped early (a request failed or a reply was malformed); nothing of that stage changed. */
  failure?: string;
}

/** What the stage loop needs of one task, whichever file it comes from. */
export interface TaskToWrite {
  id: string;
  provenance: string;
  stages: Array<{ text: string; patch: string; leave: boolean; privateNames?: readonly string[] }>;
}

export interface WriteOptions {
  writer: Writer;
  onLine?: (line: string) => void;
}

/** Writes the stages of one task that are not left alone, calling `save` after each; WriterFailed stops it. */
export async function writeTaskStages(
  t: TaskToWrite,
  o: WriteOptions,
  summary: WriteSummary,
  save: (k: number, r: StageWritten) => void,
): Promise<void> {
  const texts = t.stages.map((s) => s.text);
  for (const [k, s] of t.stages.entries()) {
    if (s.leave) {
      summary.skipped++;
      continue;
    }
    const r = await writeStageRequest(o.writer, {
      taskProvenance: t.provenance,
      stage: k + 1,
      stages: t.stages.length,
      description: s.text,
      earlier: texts.slice(0, k),
      patch: s.patch,
      privateNames: s.privateNames,
    });
    texts[k] = r.text;
    save(k, r);
    if (r.writer.status === "written") summary.written++;
    else summary.refused++;
    o.onLine?.(
      `${t.id} stage ${k + 1}: ${r.writer.status === "written" ? "written" : `rewrite refused (${r.writer.reason}); the derived text stays`}`,
    );
  }
}

/** Runs the loop over tasks, turning a WriterFailed into the summary's failure. */
export async function writeEachTask<T>(items: readonly T[], one: (item: T, summary: WriteSummary) => Promise<void>): Promise<WriteSummary> {
  const summary: WriteSummary = { written: 0, refused: 0, skipped: 0 };
  try {
    for (const item of items) await one(item, summary);
  } catch (e) {
    if (!(e instanceof WriterFailed)) throw e;
    summary.failure = e.message;
  }
  return summary;
}

/** A manifest stage takes a writer's outcome: `written` brings its text, `refused` keeps the text derived. */
export function setManifestStage(stage: ManifestTask["stages"][number], text: string, writer: WriterRecord): void {
  if (writer.status === "written") {
    stage.text = text;
    // Written for the dataset now: no longer the commit-derived draft.
    delete stage.draft;
  } else delete stage.text;
  stage.writer = writer;
}

function sameRecord(a: WriterRecord | undefined, b: WriterRecord | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Brings the manifest up to the task files (after a stop between writing one and the other); true when it changed. */
function syncManifest(task: LoadedTask, mt: ManifestTask | undefined): boolean {
  let changed = false;
  for (const [k, q] of task.requests.entries()) {
    const stage = mt?.stages[k];
    if (!stage || !q.writer || sameRecord(stage.writer, q.writer)) continue;
    setManifestStage(stage, q.text, q.writer);
    changed = true;
  }
  return changed;
}

interface DatasetTaskRaw {
  requests: Array<Record<string, unknown>>;
}

/** Writes request texts into a dataset directory (its task.json files, and manifest.json when it has one). */
export async function writeRequestsInDataset(dir: string, o: WriteOptions): Promise<WriteSummary> {
  const dataset = loadDataset(dir);
  const manifestFile = join(dataset.root, "manifest.json");
  const manifest: TaskManifest | undefined = existsSync(manifestFile) ? readJsonWith(manifestFile, taskManifestReadSchema) : undefined;
  return writeEachTask(dataset.tasks, async (task, summary) => {
    const mt = manifest?.tasks.find((m) => m.id === task.id);
    if (syncManifest(task, mt)) writeJsonAtomic(manifestFile, manifest);
    const taskFile = join(task.dir, "task.json");
    const raw = readJson(taskFile) as DatasetTaskRaw;
    const stages: TaskToWrite["stages"] = task.requests.map((q, k) => ({
      text: q.text,
      patch: task.stagePatches[k] ?? "",
      // A manifest stage with a text and no writer record was written by hand.
      leave: q.writer !== undefined || (mt?.stages[k]?.text !== undefined && mt.stages[k].writer === undefined),
    }));
    // What the check refuses to see named: only read when a stage will be asked for.
    if (stages.some((st) => !st.leave)) {
      const names = await privateNamesAtStages((await materializeRepo(dataset, task.repo)).gitDir, task.base, task.stagePatches);
      for (const [k, st] of stages.entries()) st.privateNames = names[k];
    }
    const provenance = mt?.provenance ?? `task ${task.id} of ${task.repo}`;
    await writeTaskStages({ id: task.id, provenance, stages }, o, summary, (k, r) => {
      raw.requests[k] = { ...raw.requests[k], text: r.text, writer: r.writer };
      writeJsonAtomic(taskFile, raw);
      const stage = mt?.stages[k];
      if (stage) {
        setManifestStage(stage, r.text, r.writer);
        writeJsonAtomic(manifestFile, manifest);
      }
    });
  });
}
