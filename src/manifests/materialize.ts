import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { InputError, type Problem } from "../core/errors.js";
import { readJsonWith, toJsonText, writeJsonAtomic } from "../core/json-file.js";
import { testFileMatcher } from "../dataset/file-rules.js";
import type { Dataset } from "../dataset/load.js";
import { materializeRepo } from "../dataset/repo-cache.js";
import type { DatasetManifest, RepoSpec, TaskSpec } from "../dataset/schema.js";
import { resolveSource } from "../dataset/source-location.js";
import { patchFiles } from "../dataset/patch-files.js";
import {
  isAuthored,
  taskManifestReadSchema,
  type ManifestRepo,
  type ManifestStage,
  type ManifestTask,
  type TaskManifest,
} from "./task-manifest.js";
import { sha256 } from "../core/digest.js";
import { stagePatchesOf, stageText, testsPatchOf } from "./derive.js";

/** The dataset.json entry of a manifest repository (cloned from `mirror` when given). */
export function datasetRepoOf(repo: ManifestRepo, mirror?: string): RepoSpec {
  return {
    git: repo.git,
    ...(mirror !== undefined ? { mirror } : {}),
    source: repo.source,
    tests: repo.tests,
    ...(repo.environment ? { environment: repo.environment } : {}),
  };
}

export interface DerivedTask {
  spec: TaskSpec;
  stages: string[];
  testsPatch: string;
  /** Digest mismatches and misplaced files of authored stages (empty when the repository gave exactly what the manifest records). */
  mismatches: string[];
}

/** What an authored stage's own patches change that they must not: test files in the reference, other files in the tests. */
export function authoredFileProblems(s: ManifestStage, k: number, isTest: (p: string) => boolean): string[] {
  const out: string[] = [];
  const paths = (text: string) => patchFiles(text).map((f) => f.to ?? f.from ?? "");
  for (const p of paths(s.patch ?? ""))
    if (isTest(p)) out.push(`stages[${k}].patch: changes the test file ${p} (an authored stage's tests go in its tests_patch)`);
  for (const p of paths(s.tests_patch ?? ""))
    if (!isTest(p)) out.push(`stages[${k}].tests_patch: changes ${p}, which is no test file under the repository's test rules`);
  return out;
}

/**
 * Derives one task's files from the repository and checks them against the manifest's digests.
 * Upstream stages come from the commits; authored stages (last) bring their own patch, and their
 * regression tests follow the upstream tests in tests.patch.
 */
export async function deriveTask(gitDir: string, repo: ManifestRepo, t: ManifestTask): Promise<DerivedTask> {
  const isTest = testFileMatcher(repo);
  const upstream = t.stages.filter((s) => !isAuthored(s));
  const cuts = upstream.map((s) => s.cut!);
  const stages = [...(await stagePatchesOf(gitDir, t.base, cuts, isTest)), ...t.stages.filter(isAuthored).map((s) => s.patch!)];
  const upstreamTests = await testsPatchOf(gitDir, t.base, cuts[cuts.length - 1]!, isTest);
  const testsPatch = concatPatches([upstreamTests, ...t.stages.flatMap((s) => (isAuthored(s) ? [s.tests_patch!] : []))]);
  const mismatches: string[] = [];
  stages.forEach((text, k) => {
    if (sha256(text) !== t.stages[k]!.patch_sha256)
      mismatches.push(`stages[${k}]: stage-${k + 1}.patch has sha256 ${sha256(text)}, the manifest records ${t.stages[k]!.patch_sha256}`);
  });
  if (sha256(upstreamTests) !== t.tests_patch_sha256)
    mismatches.push(`tests.patch has sha256 ${sha256(upstreamTests)}, the manifest records ${t.tests_patch_sha256}`);
  t.stages.forEach((s, k) => {
    if (isAuthored(s)) mismatches.push(...authoredFileProblems(s, k, isTest));
  });
  const requests: TaskSpec["requests"] = [];
  for (const [k, s] of t.stages.entries()) {
    const text = s.text ?? (await stageText(gitDir, k === 0 ? t.base : cuts[k - 1]!, s.cut!));
    requests.push({
      text,
      provenance: s.provenance,
      ...(s.tests.length > 0 ? { tests: s.tests } : {}),
      ...(s.writer ? { writer: s.writer } : {}),
    });
  }
  const spec: TaskSpec = {
    id: t.id,
    repo: t.repo,
    base: t.base,
    ...(t.environment ? { environment: t.environment } : {}),
    requests,
    verifier: t.verifier,
  };
  return { spec, stages, testsPatch, mismatches };
}

/** Patches one after the other, each ending in a newline (`git apply` takes several diffs of one file in order). */
function concatPatches(parts: readonly string[]): string {
  return parts
    .filter((p) => p !== "")
    .map((p) => (p.endsWith("\n") ? p : `${p}\n`))
    .join("");
}

/** Writes a task directory whole or not at all (built beside it, then renamed). */
export function writeDerivedTask(tasksDir: string, d: DerivedTask): void {
  const dir = join(tasksDir, d.spec.id);
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, "task.json"), toJsonText(d.spec));
  d.stages.forEach((text, k) => writeFileSync(join(tmp, `stage-${k + 1}.patch`), text));
  writeFileSync(join(tmp, "tests.patch"), d.testsPatch);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
}

/** A dataset (no tasks yet) whose repositories are the manifest's, cloned from `sources` where given. */
export function datasetOfManifest(manifest: TaskManifest, root: string, sources?: Record<string, string>): Dataset {
  const repos: DatasetManifest["repos"] = {};
  for (const [name, repo] of Object.entries(manifest.repos)) {
    const src = sources?.[name];
    repos[name] = datasetRepoOf(repo, src === undefined ? undefined : resolveSource(process.cwd(), src));
  }
  return { root, manifest: { name: manifest.name, version: manifest.version, repos }, tasks: [] };
}

export interface MaterializeOptions {
  manifestFile: string;
  out: string;
  /** Repository name → a local clone, mirror or bundle, or another URL. */
  sources?: Record<string, string>;
}

/**
 * Materializes a manifest into a dataset directory: clones each repository (from `sources` when
 * given), derives every patch, checks every digest, and writes the tasks. Any mismatch is an
 * InputError listing each (nothing of a mismatching task is written).
 */
export async function materializeManifest(opts: MaterializeOptions): Promise<{ dir: string; tasks: number }> {
  const manifest: TaskManifest = readJsonWith(opts.manifestFile, taskManifestReadSchema);
  const out = resolve(opts.out);
  if (existsSync(join(out, "tasks")) && readdirSync(join(out, "tasks")).length > 0)
    throw new InputError({ file: out, path: "", message: "already holds tasks; materialize into a new directory" });
  const problems: Problem[] = [];
  for (const name of Object.keys(opts.sources ?? {}))
    if (!(name in manifest.repos))
      problems.push({
        file: "--repo",
        path: name,
        message: `no repository ${name} in the manifest (${Object.keys(manifest.repos).join(", ")})`,
      });
  if (problems.length > 0) throw new InputError(problems);
  const dataset = datasetOfManifest(manifest, out, opts.sources);
  const derived: DerivedTask[] = [];
  for (const [i, t] of manifest.tasks.entries()) {
    const repo = manifest.repos[t.repo];
    if (!repo) {
      problems.push({ file: opts.manifestFile, path: `tasks[${i}].repo`, message: `unknown repository ${t.repo}` });
      continue;
    }
    const gitDir = (await materializeRepo(dataset, t.repo)).gitDir;
    const d = await deriveTask(gitDir, repo, t).catch((e: Error) => ({ error: e.message.split("\n")[0]! }));
    if ("error" in d)
      problems.push({ file: opts.manifestFile, path: `tasks[${i}]`, message: `${t.id}: cannot be derived from ${repo.git}: ${d.error}` });
    else if (d.mismatches.length > 0)
      problems.push(
        ...d.mismatches.map((m) => ({
          file: opts.manifestFile,
          path: `tasks[${i}].${m.split(":")[0]}`,
          message: `${t.id}: ${m.slice(m.indexOf(":") + 2)}`,
        })),
      );
    else derived.push(d);
  }
  if (problems.length > 0) throw new InputError(problems);
  mkdirSync(join(out, "tasks"), { recursive: true });
  writeJsonAtomic(join(out, "dataset.json"), dataset.manifest);
  for (const d of derived) writeDerivedTask(join(out, "tasks"), d);
  return { dir: out, tasks: derived.length };
}
