import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { InputError, type Problem } from "../core/errors.js";
import { readJsonWith, writeJsonAtomic } from "../core/json-file.js";
import { TASK_MANIFEST_FORMAT, taskManifestReadSchema, type TaskManifest } from "./task-manifest.js";

export interface MergeInput {
  file: string;
  manifest: TaskManifest;
}

/** Fields of a repository entry whose values differ between two manifests (`environment.test_command`, …). */
function differingFields(a: unknown, b: unknown, path: string): string[] {
  if (isDeepStrictEqual(a, b)) return [];
  const isObj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
  if (!isObj(a) || !isObj(b)) return [path];
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort().flatMap((k) => differingFields(a[k], b[k], `${path}.${k}`));
}

/**
 * One manifest holding the tasks of several (mining runs of one repository over different ranges or
 * paths, or datasets of several repositories). A repository named in several must be the same entry
 * in each (URL, license, classification, environment): its tasks were judged with it. A task id in
 * several must be the same task (the same candidate mined twice); it is kept once. Input order.
 */
export function mergeManifests(inputs: readonly MergeInput[], name?: string): TaskManifest {
  const problems: Problem[] = [];
  const repos: TaskManifest["repos"] = {};
  const repoFrom = new Map<string, string>();
  const tasks: TaskManifest["tasks"] = [];
  const taskFrom = new Map<string, { file: string; index: number }>();
  for (const { file, manifest } of inputs) {
    for (const [repo, entry] of Object.entries(manifest.repos)) {
      const earlier = repos[repo];
      if (earlier === undefined) {
        repos[repo] = entry;
        repoFrom.set(repo, file);
        continue;
      }
      for (const field of differingFields(earlier, entry, `repos.${repo}`)) {
        problems.push({
          file,
          path: field,
          message: `differs from ${repoFrom.get(repo)}: tasks judged in other environments or classifications cannot form one dataset`,
        });
      }
    }
    manifest.tasks.forEach((t, i) => {
      const seen = taskFrom.get(t.id);
      if (seen === undefined) {
        taskFrom.set(t.id, { file, index: tasks.length });
        tasks.push(t);
      } else if (!isDeepStrictEqual(tasks[seen.index], t)) {
        problems.push({
          file,
          path: `tasks[${i}].id`,
          message: `"${t.id}" is also a task of ${seen.file}, with other stages, tests or texts`,
        });
      }
    });
  }
  if (problems.length > 0) throw new InputError(problems);
  const first = inputs[0]!.manifest;
  return { format: TASK_MANIFEST_FORMAT, name: name ?? first.name, version: first.version, repos, tasks };
}

/**
 * `datasets merge MANIFEST... --out FILE`: the output may be one of the inputs (adding a mining run to a
 * shipped manifest); any other existing file is refused, so nothing is overwritten by accident.
 */
export function mergeManifestFiles(files: readonly string[], out: string, name?: string): TaskManifest {
  const target = resolve(out);
  if (existsSync(target) && !files.some((f) => resolve(f) === target)) {
    throw new InputError({
      file: out,
      path: "",
      message: "already exists and is none of the manifests merged; choose another --out or remove it",
    });
  }
  const merged = mergeManifests(
    files.map((file) => ({ file, manifest: readJsonWith(file, taskManifestReadSchema) })),
    name,
  );
  writeJsonAtomic(target, merged);
  return merged;
}
