import { assertRunDir } from "../formats/run-dir-check.js";
import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { InputError, inputError, type Problem } from "../core/errors.js";
import { readJson, writeJsonAtomic } from "../core/json-file.js";
import { loadDataset, taskById, type Dataset, type LoadedTask } from "../dataset/load.js";
import { DiskFullStop } from "../core/disk-full.js";
import { defaultMaxArtifactMb, readArtifactText } from "./artifact-file.js";
import { openScratch, reapNotices, reapStaleScratch, type Scratch } from "../testbed/verifier-scratch.js";
import { recordedPath, runConfigReadSchema, type RunConfigRead } from "../formats/run-config.js";
import { runFiles } from "../formats/run-layout.js";
import { parseSessionId } from "../formats/sessions.js";
import type { Verdict } from "../formats/verdict.js";
import type { ConfineBackend } from "../confine/backend.js";
import { recordedTestRuns } from "../confine/confinement.js";
import type { Limits } from "../confine/limits.js";
import { sealVerdict, verdictKey } from "../formats/verdict-seal.js";
import { verifyArtifact } from "./verify-artifact.js";
import { prepareVerification } from "./prepare-verification.js";
import { mapPool } from "../core/pool.js";

export interface VerifyRunOptions {
  /** Verifications at once (default 2). */
  concurrency?: number;
  /** Only these session ids (default: every session of the run). */
  sessions?: readonly string[];
  /** Verify again even when a verdict for the same artifact exists. */
  force?: boolean;
  maxInfraRetries?: number;
  setupTimeoutMs?: number;
  /** Artifacts larger than this are not read: their verdict is `not applied` (default defaultMaxArtifactMb). */
  maxArtifactMb?: number;
  /** How test runs are confined (default: the default backend, bubblewrap). */
  confine?: ConfineBackend;
  /** Resource limits of each test run (default: none). */
  limits?: Limits;
  onProgress?: (event: VerifyProgress) => void;
  /** Told what was cleaned up after a verifier that died (its test commands, its scratch directory). */
  onNotice?: (message: string) => void;
}

export interface VerifyProgress {
  session: string;
  verdict: Verdict;
  /** True when an existing verdict for the same artifact was kept. */
  reused: boolean;
  done: number;
  total: number;
}

export interface VerifyRunResult {
  verdicts: Record<string, Verdict>;
  /** Sessions whose existing verdict.json had no valid seal (verified again). */
  forged: string[];
  /** Sessions whose existing verdict was kept (same artifact, not an infrastructure fault). */
  reused: string[];
  verified: string[];
}

/** The dataset a run was made from: `dataset.path` of run.json (see recordedPath). */
export function runDataset(runDir: string): Dataset {
  const file = runFiles.config(runDir);
  const config = readJson(file) as { dataset?: { path?: unknown } } | null;
  const p = config?.dataset?.path;
  if (typeof p !== "string" || p === "") throw inputError(file, "dataset.path", "required: the dataset directory of the run");
  return loadDataset(recordedPath(runDir, p));
}

/** The focus task a session was run for: session.json's `focus`, else (no summary yet) from the session id. */
function focusOf(runDir: string, session: string): string | null {
  try {
    const summary = readJson(runFiles.summary(runDir, session)) as { focus?: unknown } | null;
    if (typeof summary?.focus === "string") return summary.focus;
  } catch {
    // no session.json (the session was cut off before its end): the id still names the pair
  }
  return parseSessionId(session)?.pairId ?? null;
}

/** Every session directory of a run, sorted. */
export function sessionDirs(runDir: string): string[] {
  const dir = join(runDir, "sessions");
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/**
 * Verifies every session of a run (or the chosen ones) and writes `sessions/<id>/verdict.json`
 * atomically, with `verify.log` beside it. A session without artifact.patch gets an unresolved
 * "no artifact" verdict. Re-running keeps verdicts of unchanged artifacts unless `force`.
 */
export async function verifyRun(runDir: string, opts: VerifyRunOptions = {}): Promise<VerifyRunResult> {
  const root = resolve(runDir);
  assertRunDir(root);
  const dataset = runDataset(root);
  const tasks = taskById(dataset);
  const all = sessionDirs(root);
  const chosen = opts.sessions && opts.sessions.length > 0 ? [...new Set(opts.sessions)] : all;
  const problems: Problem[] = [];
  const jobs: Array<{ session: string; taskId: string }> = [];
  for (const session of chosen) {
    if (!all.includes(session)) {
      problems.push({ file: join(root, "sessions"), path: session, message: "no such session in the run" });
      continue;
    }
    const focus = focusOf(root, session);
    if (focus === null) {
      problems.push({
        file: runFiles.sessionDir(root, session),
        path: "",
        message: "not a session id (<focus task>.<base|switch>) and no session.json names its focus",
      });
      continue;
    }
    if (!tasks.has(focus)) {
      problems.push({ file: runFiles.sessionDir(root, session), path: "", message: `task ${focus} is not in the dataset ${dataset.root}` });
      continue;
    }
    jobs.push({ session, taskId: focus });
  }
  if (problems.length > 0) throw new InputError(problems);

  const result: VerifyRunResult = { verdicts: {}, reused: [], verified: [], forged: [] };
  for (const notice of reapNotices(reapStaleScratch())) opts.onNotice?.(notice);
  const ctx: JobContext = {
    root,
    dataset,
    tasks,
    opts,
    scratch: openScratch(),
    maxBytes: (opts.maxArtifactMb ?? defaultMaxArtifactMb) * 1024 * 1024,
    key: verdictKey(root),
    forged: result.forged,
  };
  const diskFull = new DiskFullStop();
  let done = 0;
  const one = async (job: (typeof jobs)[number]) => {
    // A full disk stops new verifications: each would fail the same way.
    if (diskFull.stopped) return;
    let r: { verdict: Verdict; reused: boolean };
    try {
      r = await verifyJob(ctx, job);
    } catch (e) {
      if (diskFull.record(job.session, e)) return;
      throw e;
    }
    if (r.verdict.infra_fault) diskFull.record(job.session, r.verdict.infra_reason);
    (r.reused ? result.reused : result.verified).push(job.session);
    result.verdicts[job.session] = r.verdict;
    done++;
    opts.onProgress?.({ session: job.session, verdict: r.verdict, reused: r.reused, done, total: jobs.length });
  };
  try {
    await mapPool(jobs, opts.concurrency ?? 2, one);
  } finally {
    ctx.scratch.close();
  }
  const stop = diskFull.error(
    (f) =>
      `${root}: the disk is full (${f.reason}); stopped at session ${f.item}: ${done} verdict(s) written or kept, ${jobs.length - done} not; ` +
      `verdicts and logs written before are unchanged. Free space, then run: switch-swe verify ${root}`,
  );
  if (stop) throw stop;
  result.verified.sort();
  result.reused.sort();
  result.forged.sort();
  return result;
}

interface JobContext {
  root: string;
  dataset: Dataset;
  tasks: Map<string, LoadedTask>;
  opts: VerifyRunOptions;
  scratch: Scratch;
  maxBytes: number;
  /** The run's verdict key (seals what this verifier writes) and the sessions whose seal did not match. */
  key: Buffer;
  forged: string[];
}

/**
 * Verifies one session (or keeps its verdict). The new log is written beside the old one and both files
 * replace the old ones only once the verdict is complete: a failure (a full disk) leaves them as they were.
 */
async function verifyJob(ctx: JobContext, job: { session: string; taskId: string }): Promise<{ verdict: Verdict; reused: boolean }> {
  const { root, opts } = ctx;
  const task = ctx.tasks.get(job.taskId)!;
  const prepared = await prepareVerification({
    runDir: root,
    session: job.session,
    task,
    maxBytes: ctx.maxBytes,
    key: ctx.key,
    forged: ctx.forged,
    force: opts.force === true,
  });
  if (prepared.kind === "kept") return { verdict: prepared.verdict, reused: true };
  const logFile = runFiles.verifyLog(root, job.session);
  const newLog = `${logFile}.partial`;
  const logLabel = `sessions/${job.session}/verify.log`;
  try {
    let verdict: Verdict;
    if (prepared.kind === "refused") {
      writeFileSync(newLog, prepared.log);
      verdict = prepared.verdict;
    } else {
      // A neutral name: the code under test runs in it and must not learn the session, task or condition.
      const workRoot = ctx.scratch.workDir("v");
      try {
        verdict = await verifyArtifact({
          dataset: ctx.dataset,
          task,
          artifactText: readArtifactText(prepared.artifact),
          artifactSha256: prepared.sha256,
          workRoot,
          session: job.session,
          logFile: newLog,
          logLabel,
          ...(opts.maxInfraRetries !== undefined ? { maxInfraRetries: opts.maxInfraRetries } : {}),
          ...(opts.setupTimeoutMs !== undefined ? { setupTimeoutMs: opts.setupTimeoutMs } : {}),
          ...(opts.confine ? { confine: opts.confine } : {}),
          ...(opts.limits ? { limits: opts.limits } : {}),
        });
      } finally {
        rmSync(workRoot, { recursive: true, force: true, maxRetries: 3 });
      }
    }
    verdict = sealVerdict(verdict, ctx.key);
    writeJsonAtomic(runFiles.verdict(root, job.session), verdict);
    renameSync(newLog, logFile);
    return { verdict, reused: false };
  } catch (e) {
    rmSync(newLog, { force: true });
    throw e;
  }
}

/**
 * How a run is verified when `verify` is not told: as run.json records its test runs confined (a run
 * started with --sandbox none, or the demo without bubblewrap, is verified unconfined), else by the default backend;
 * under the limits run.json records (`limits.requested`), else the default ones.
 */
export function recordedVerifier(runDir: string): { testRuns: ConfineBackend; limits: string | null } {
  const file = runFiles.config(resolve(runDir));
  let config: RunConfigRead | undefined;
  try {
    config = existsSync(file) ? runConfigReadSchema.safeParse(readJson(file)).data : undefined;
  } catch {
    // An unreadable run.json is reported by the verification itself, in its own words.
    config = undefined;
  }
  return { testRuns: recordedTestRuns(config?.sandbox, file), limits: config?.limits?.requested ?? null };
}
