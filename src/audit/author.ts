import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listed } from "./finding.js";
import { contradictedUpstream } from "./patch-checks.js";
import { sha256 } from "../core/digest.js";
import { InputError, zodProblems, type Problem } from "../core/errors.js";
import { readJsonWith, toJsonText, writeJsonAtomic } from "../core/json-file.js";
import { sourceMatcher, testFileMatcher } from "../dataset/file-rules.js";
import { loadDataset } from "../dataset/load.js";
import { materializeRepo } from "../dataset/repo-cache.js";
import { AUTHORED } from "../dataset/schema.js";
import type { AuditFinding } from "../formats/audit.js";
import { environmentFor, freshCheckout } from "../testbed/task-testbed.js";
import { authoredOutcomes, type AuthoredPatches } from "./author-runs.js";
import { newestCheck } from "./author-newest.js";
import { authoredFileProblems, datasetOfManifest, materializeManifest } from "../manifests/materialize.js";
import { isAuthored, taskManifestReadSchema, taskManifestSchema } from "../manifests/task-manifest.js";
import type { ManifestStage, ManifestTask, TaskManifest } from "../manifests/task-manifest.js";

export interface AuthorOptions {
  manifestFile: string;
  task: string;
  /** 1-based: the stage the authored one follows (the task's last). */
  after: number;
  textFile: string;
  patchFile: string;
  testsFile: string;
  sources?: Record<string, string>;
}

export interface AuthorResult {
  /** The task as rewritten, or null when a history check refused the stage (nothing written). */
  task: ManifestTask | null;
  stage: number;
  f2p: string[];
  passAtBase: string[];
  findings: AuditFinding[];
  newest: string;
}

function readInput(file: string, option: string): string {
  if (!existsSync(file)) throw new InputError({ file, path: option, message: "no such file" });
  const text = readFileSync(file, "utf8");
  if (text.trim() === "") throw new InputError({ file, path: option, message: "is empty" });
  return text;
}

/** The task and where it is, refused (one line) when unknown, already authored, or `after` is not its last stage. */
function taskToAuthor(file: string, m: TaskManifest, id: string, after: number): { i: number; t: ManifestTask } {
  const i = m.tasks.findIndex((t) => t.id === id);
  if (i < 0) throw new InputError({ file, path: "tasks", message: `no task ${id}` });
  const t = m.tasks[i]!;
  const where = `tasks[${i}].stages`;
  const k = t.stages.findIndex(isAuthored);
  if (k >= 0) {
    const message = `${id} already has an authored stage (stage ${k + 1}): at most one per task`;
    throw new InputError({ file, path: `${where}[${k}]`, message });
  }
  const n = t.stages.length;
  if (after < 1 || after > n) {
    throw new InputError({ file, path: where, message: `${id} has ${n} stage(s): --after ${after} is none of them` });
  }
  if (after < n) {
    const message = `${id}: stage ${after + 1} is upstream and an authored stage comes after every upstream stage: --after ${n}`;
    throw new InputError({ file, path: where, message });
  }
  return { i, t };
}

/** The authored stage from the files given, its own files checked against the repository's rules (one line each). */
function authoredStage(o: AuthorOptions, m: TaskManifest, t: ManifestTask): { stage: ManifestStage; a: AuthoredPatches } {
  const text = readInput(o.textFile, "--text").trim();
  const a = { patch: readInput(o.patchFile, "--patch"), testsPatch: readInput(o.testsFile, "--tests") };
  const digests = { patch_sha256: sha256(a.patch), tests_patch_sha256: sha256(a.testsPatch) };
  const stage: ManifestStage = { provenance: AUTHORED, text, tests: [], patch: a.patch, tests_patch: a.testsPatch, ...digests };
  let problems: string[];
  try {
    problems = authoredFileProblems(stage, t.stages.length, testFileMatcher(m.repos[t.repo]!));
  } catch (e) {
    throw new InputError({ file: o.patchFile, path: "--patch/--tests", message: `not a diff: ${(e as Error).message}` });
  }
  const problem = (p: string): Problem => ({ file: o.manifestFile, path: p.split(":")[0]!, message: p.slice(p.indexOf(":") + 2) });
  if (problems.length > 0) throw new InputError(problems.map(problem));
  return { stage, a };
}

/**
 * `datasets author`: a benchmark-authored stage appended after the task's last stage. Its F2P tests are
 * the authored tests that fail at the base and after stage K and pass with the authored patch (the
 * dataset's runner, sandboxed); the audit's history checks must pass (it takes back no upstream line,
 * and its tests do not fail at the repository's newest commit where that commit still has the code it
 * touches). The manifest is rewritten atomically, or not at all.
 */
export async function authorStage(o: AuthorOptions): Promise<AuthorResult> {
  const m = readJsonWith(o.manifestFile, taskManifestReadSchema);
  const { i, t } = taskToAuthor(o.manifestFile, m, o.task, o.after);
  const { stage, a } = authoredStage(o, m, t);
  const scratch = mkdtempSync(join(tmpdir(), "switch-swe-author-"));
  try {
    const subset: TaskManifest = { ...m, repos: { [t.repo]: m.repos[t.repo]! }, tasks: [t] };
    writeFileSync(join(scratch, "manifest.json"), toJsonText(subset));
    const sources = o.sources ?? {};
    await materializeManifest({ manifestFile: join(scratch, "manifest.json"), out: join(scratch, "dataset"), sources });
    const dataset = loadDataset(join(scratch, "dataset"));
    const task = dataset.tasks[0]!;
    const env = await environmentFor(dataset, task, await freshCheckout(dataset, task, join(scratch, "probe")), () => {}, 30 * 60_000);
    const k = t.stages.length + 1;
    const out = await authoredOutcomes(dataset, task, env, scratch, o.after, a, { manifest: o.manifestFile, patch: o.patchFile });
    if (out.broken.length > 0) {
      const message = `breaks ${out.broken.length} test(s) that pass after stage ${o.after}: ${listed(out.broken)}`;
      throw new InputError({ file: o.patchFile, path: "--patch", message });
    }
    if (out.f2p.length === 0) {
      const atBase = out.passAtBase.length > 0 ? ` (${listed(out.passAtBase)} already pass at the base)` : "";
      const message = `no test fails at the base and after stage ${o.after} and passes with the patch${atBase}`;
      throw new InputError({ file: o.testsFile, path: "--tests", message });
    }
    const findings = contradictedUpstream(task.stagePatches, [a.patch], sourceMatcher(m.repos[t.repo]!));
    const gitDir = (await materializeRepo(datasetOfManifest(m, "", sources), t.repo)).gitDir;
    const lastCut = t.stages[t.stages.length - 1]!.cut!;
    const newest = await newestCheck({ dataset, task, env, work: scratch, gitDir, lastCut, authored: a, f2p: out.f2p, stage: k });
    findings.push(...newest.findings);
    const result = { stage: k, f2p: out.f2p, passAtBase: out.passAtBase, findings, newest: newest.note };
    if (findings.length > 0) return { ...result, task: null };
    const verifier = { ...t.verifier, fail_to_pass: [...t.verifier.fail_to_pass, ...out.f2p] };
    const task2: ManifestTask = { ...t, stages: [...t.stages, { ...stage, tests: out.f2p }], verifier };
    m.tasks[i] = task2;
    // The manifest as written must read back (the map, the authored stage's digests).
    const check = taskManifestSchema.safeParse(m);
    if (!check.success) throw new InputError(zodProblems(o.manifestFile, check.error));
    writeJsonAtomic(o.manifestFile, m);
    return { ...result, task: task2 };
  } finally {
    rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  }
}
