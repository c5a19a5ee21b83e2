import { join } from "node:path";
import { inputError } from "../core/errors.js";
import { readJson, writeJsonAtomic } from "../core/json-file.js";
import { loadDataset, type Dataset, type LoadedTask } from "../dataset/load.js";
import { qualifyTask, type QualifyOptions, type QualifyReport } from "./qualify-task.js";
import { mapPool } from "../core/pool.js";

export interface QualifyDatasetOptions {
  tasks?: readonly string[];
  runs?: number;
  concurrency?: number;
  suite?: "whole" | "touched";
  /** Rewrite each task.json's declared lists with the proposed ones. */
  write?: boolean;
  onReport?: (r: QualifyReport) => void;
  /** Where the qualifications run (default: here, `concurrency` at once); `tasks qualify --queue` passes the queue's. */
  backend?: QualifyBackend;
}

/** Runs qualifications elsewhere (a queue's workers); opened once the dataset is loaded and checked. */
export interface QualifyBackend {
  open(
    dataset: Dataset,
    tasks: number,
  ): Promise<{
    qualify: (task: LoadedTask, opts: QualifyOptions) => Promise<QualifyReport>;
    concurrency: number;
    close: () => Promise<void>;
  }>;
}

/**
 * Rewrites the declared lists of a task.json (every other field kept as it is) and drops, from the
 * stages' `tests`, ids that are no longer F2P. Returns the ids so dropped.
 */
export function writeDeclaredLists(task: LoadedTask, lists: { fail_to_pass: string[]; pass_to_pass: string[] }): string[] {
  const file = join(task.dir, "task.json");
  const raw = readJson(file) as { verifier: Record<string, unknown>; requests: Array<{ tests?: string[] }> };
  raw.verifier.fail_to_pass = lists.fail_to_pass;
  raw.verifier.pass_to_pass = lists.pass_to_pass;
  const f2p = new Set(lists.fail_to_pass);
  const removed: string[] = [];
  for (const r of raw.requests) {
    if (!r.tests) continue;
    removed.push(...r.tests.filter((t) => !f2p.has(t)));
    r.tests = r.tests.filter((t) => f2p.has(t));
    if (r.tests.length === 0) delete r.tests;
  }
  writeJsonAtomic(file, raw);
  return removed;
}

/** Qualifies the chosen tasks of a dataset (all by default); with `write`, updates their declared lists. */
export async function qualifyDataset(
  dir: string,
  opts: QualifyDatasetOptions = {},
): Promise<{ dataset: Dataset; reports: QualifyReport[] }> {
  const dataset = loadDataset(dir);
  const byId = new Map(dataset.tasks.map((t) => [t.id, t]));
  const chosen = opts.tasks && opts.tasks.length > 0 ? [...new Set(opts.tasks)] : dataset.tasks.map((t) => t.id);
  for (const id of chosen) if (!byId.has(id)) throw inputError(join(dataset.root, "tasks"), id, "no such task");
  const reports: QualifyReport[] = new Array(chosen.length);
  const remote = opts.backend ? await opts.backend.open(dataset, chosen.length) : null;
  const qualify = remote?.qualify ?? ((task: LoadedTask, o: QualifyOptions) => qualifyTask(dataset, task, o));
  await mapPool(chosen, remote?.concurrency ?? opts.concurrency ?? 2, async (id, i) => {
    const task = byId.get(id)!;
    const r = await qualify(task, {
      ...(opts.runs !== undefined ? { runs: opts.runs } : {}),
      ...(opts.suite ? { suite: opts.suite } : {}),
    });
    if (opts.write && r.proposed) {
      const removed = writeDeclaredLists(task, r.proposed);
      if (removed.length > 0) r.differences.push(`removed from the stages' tests (no longer F2P): ${removed.join(", ")}`);
      // The task now declares what was observed: only problems of the runs themselves remain.
      r.problems = r.problems.filter((p) => !p.startsWith("declared "));
      r.declared = { fail_to_pass: [...r.proposed.fail_to_pass], pass_to_pass: [...r.proposed.pass_to_pass] };
      r.qualified = r.problems.length === 0;
    }
    reports[i] = r;
    opts.onReport?.(r);
  }).finally(() => remote?.close());
  return { dataset, reports };
}
