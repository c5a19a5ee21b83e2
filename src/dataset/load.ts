import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { InputError, type Problem, zodProblems } from "../core/errors.js";
import { readJson } from "../core/json-file.js";
import { isRemoteSource } from "./source-location.js";
import { datasetManifestSchema, taskSchema, type DatasetManifest, type TaskSpec } from "./schema.js";

export interface LoadedTask extends TaskSpec {
  dir: string;
  /** stage-K.patch texts, K = 1..n, in order (empty string when the file is missing: see problems). */
  stagePatches: string[];
  testsPatch: string;
}

export interface Dataset {
  root: string;
  manifest: DatasetManifest;
  tasks: LoadedTask[];
}

export interface LoadResult {
  dataset: Dataset | null;
  problems: Problem[];
}

function readText(file: string, problems: Problem[]): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    problems.push({ file, path: "", message: "file not found" });
    return "";
  }
}

/**
 * Loads a dataset directory and reports every structural problem (schema, missing files,
 * ids that do not match their directory). Deeper checks (patches apply, locality) live in validate.ts.
 */
export function loadDatasetCollecting(dir: string): LoadResult {
  const root = resolve(dir);
  const problems: Problem[] = [];
  const manifestFile = join(root, "dataset.json");
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    return { dataset: null, problems: [{ file: root, path: "", message: "dataset directory not found" }] };
  }
  let manifest: DatasetManifest | null = null;
  try {
    const parsed = datasetManifestSchema.safeParse(readJson(manifestFile));
    if (parsed.success) manifest = parsed.data;
    else problems.push(...zodProblems(manifestFile, parsed.error));
  } catch (e) {
    if (e instanceof InputError) problems.push(...e.problems);
    else throw e;
  }

  const tasksDir = join(root, "tasks");
  const tasks: LoadedTask[] = [];
  if (!existsSync(tasksDir)) {
    problems.push({ file: tasksDir, path: "", message: "no tasks directory" });
  } else {
    const ids = readdirSync(tasksDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    if (ids.length === 0) problems.push({ file: tasksDir, path: "", message: "no tasks" });
    for (const id of ids) {
      const taskDir = join(tasksDir, id);
      const file = join(taskDir, "task.json");
      let spec: TaskSpec;
      try {
        const parsed = taskSchema.safeParse(readJson(file));
        if (!parsed.success) {
          problems.push(...zodProblems(file, parsed.error));
          continue;
        }
        spec = parsed.data;
      } catch (e) {
        if (e instanceof InputError) {
          problems.push(...e.problems);
          continue;
        }
        throw e;
      }
      if (spec.id !== id) problems.push({ file, path: "id", message: `"${spec.id}" does not match its directory name "${id}"` });
      if (manifest && !(spec.repo in manifest.repos)) {
        problems.push({
          file,
          path: "repo",
          message: `unknown repository "${spec.repo}" (dataset.json has: ${Object.keys(manifest.repos).join(", ")})`,
        });
      }
      const stagePatches = spec.requests.map((_, k) => readText(join(taskDir, `stage-${k + 1}.patch`), problems));
      const extra = readdirSync(taskDir).filter((f) => {
        const m = /^stage-(\d+)\.patch$/.exec(f);
        return m !== null && (Number(m[1]) < 1 || Number(m[1]) > spec.requests.length);
      });
      for (const f of extra) {
        problems.push({
          file: join(taskDir, f),
          path: "",
          message: `stage patch without a request (the task has ${spec.requests.length} requests)`,
        });
      }
      const testsPatch = readText(join(taskDir, "tests.patch"), problems);
      tasks.push({ ...spec, dir: taskDir, stagePatches, testsPatch });
    }
  }
  if (manifest) problems.push(...repoPathProblems(root, manifestFile, manifest));
  return { dataset: manifest ? { root, manifest, tasks } : null, problems };
}

/** A local repository directory or mirror the manifest names that is not there. */
function repoPathProblems(root: string, manifestFile: string, manifest: DatasetManifest): Problem[] {
  const problems: Problem[] = [];
  for (const [name, repo] of Object.entries(manifest.repos)) {
    if ("path" in repo) {
      const p = join(root, repo.path);
      if (!existsSync(p) || !statSync(p).isDirectory()) {
        problems.push({ file: manifestFile, path: `repos.${name}.path`, message: `directory ${repo.path} not found` });
      }
    } else if (repo.mirror !== undefined && !isRemoteSource(repo.mirror) && !existsSync(resolve(root, repo.mirror))) {
      problems.push({ file: manifestFile, path: `repos.${name}.mirror`, message: `mirror ${repo.mirror} not found` });
    }
  }
  return problems;
}

/** Loads a dataset and throws an InputError listing every problem when there is any. */
export function loadDataset(dir: string): Dataset {
  const { dataset, problems } = loadDatasetCollecting(dir);
  if (problems.length > 0 || !dataset) throw new InputError(problems);
  return dataset;
}

export function taskById(dataset: Dataset): Map<string, LoadedTask> {
  return new Map(dataset.tasks.map((t) => [t.id, t]));
}
