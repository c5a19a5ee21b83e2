import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { InputError, type Problem } from "../core/errors.js";
import { readJsonWith, writeJsonAtomic } from "../core/json-file.js";
import { materializeRepo } from "../dataset/repo-cache.js";
import { taskManifestReadSchema, type TaskManifest } from "../manifests/task-manifest.js";
import { datasetOfManifest, deriveTask } from "../manifests/materialize.js";
import { privateNamesAtStages } from "./private-names.js";
import { setManifestStage, writeEachTask, writeTaskStages, type WriteOptions, type WriteSummary } from "./write-requests.js";

export interface WriteManifestOptions extends WriteOptions {
  manifestFile: string;
  /** The manifest to write; default: the input, in place. An existing file is resumed. */
  out?: string;
  /** Repository name → a local clone, mirror or bundle, or another URL (as `datasets materialize --repo`). */
  sources?: Record<string, string>;
}

/** The manifest to continue from: `out` when it exists (a resumed run), else the input. */
function startingManifest(o: WriteManifestOptions, target: string): TaskManifest {
  const input = readJsonWith(o.manifestFile, taskManifestReadSchema);
  if (target === resolve(o.manifestFile) || !existsSync(target)) return input;
  const existing = readJsonWith(target, taskManifestReadSchema);
  const ids = (m: TaskManifest) => m.tasks.map((t) => `${t.id}@${t.stages.map((s) => s.cut ?? s.patch_sha256).join(",")}`).join(" ");
  if (existing.name !== input.name || ids(existing) !== ids(input)) {
    throw new InputError({
      file: target,
      path: "",
      message: `already exists and is not a copy of ${o.manifestFile} (other tasks); choose another --out or remove it`,
    });
  }
  return existing;
}

/**
 * Writes request texts into a manifest: each task's stage patches and derived texts come from its
 * repository (as `datasets materialize` derives them, digests checked), and each outcome is saved
 * to the target manifest atomically before the next stage is asked.
 */
export async function writeRequestsInManifest(o: WriteManifestOptions): Promise<WriteSummary> {
  const target = resolve(o.out ?? o.manifestFile);
  const manifest = startingManifest(o, target);
  const problems: Problem[] = Object.keys(o.sources ?? {})
    .filter((name) => !(name in manifest.repos))
    .map((name) => ({
      file: "--repo",
      path: name,
      message: `no repository ${name} in the manifest (${Object.keys(manifest.repos).join(", ")})`,
    }));
  if (problems.length > 0) throw new InputError(problems);
  const scratch = mkdtempSync(join(tmpdir(), "switch-swe-write-requests-"));
  const dataset = datasetOfManifest(manifest, scratch, o.sources);
  try {
    const summary = await writeEachTask([...manifest.tasks.entries()], async ([i, t], summary) => {
      const repo = manifest.repos[t.repo];
      if (!repo) throw new InputError({ file: o.manifestFile, path: `tasks[${i}].repo`, message: `unknown repository ${t.repo}` });
      const gitDir = (await materializeRepo(dataset, t.repo)).gitDir;
      const d = await deriveTask(gitDir, repo, t);
      if (d.mismatches.length > 0)
        throw new InputError(
          d.mismatches.map((m) => ({
            file: o.manifestFile,
            path: `tasks[${i}].${m.split(":")[0]}`,
            message: `${t.id}: ${m.slice(m.indexOf(":") + 2)}`,
          })),
        );
      // A stage with a writer record was asked before; one with a text and no record was written by hand.
      const leave = t.stages.map((s) => s.writer !== undefined || s.text !== undefined);
      // What the check refuses to see named: only read when a stage will be asked for.
      const names = leave.every(Boolean) ? [] : await privateNamesAtStages(gitDir, t.base, d.stages);
      const stages = t.stages.map((_, k) => ({
        text: d.spec.requests[k]!.text,
        patch: d.stages[k]!,
        leave: leave[k]!,
        privateNames: names[k],
      }));
      await writeTaskStages({ id: t.id, provenance: t.provenance, stages }, o, summary, (k, r) => {
        setManifestStage(t.stages[k]!, r.text, r.writer);
        writeJsonAtomic(target, manifest);
      });
    });
    if (!summary.failure && !existsSync(target)) writeJsonAtomic(target, manifest);
    return summary;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
