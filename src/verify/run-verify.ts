import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { InputError, inputError, type Problem } from "../core/errors.js";
import { readJson, writeJsonAtomic } from "../core/json-file.js";
import { loadDataset, taskById, type Dataset } from "../dataset/load.js";
import { recordedPath } from "../formats/run-config.js";
import { runFiles } from "../formats/run-layout.js";
import { parseSessionId } from "../formats/sessions.js";
import { verdictSchema, type Verdict } from "../formats/verdict.js";
import { verifyArtifact } from "./verify-artifact.js";

export interface VerifyRunOptions {
  /** Verifications at once (default 2). */
  concurrency?: number;
  /** Only these session ids (default: every session of the run). */
  sessions?: readonly string[];
  /** Verify again even when a verdict for the same artifact exists. */
  force?: boolean;
  maxInfraRetries?: number;
  setupTimeoutMs?: number;
  onProgress?: (event: VerifyProgress) => void;
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

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function readArtifact(runDir: string, session: string): string | null {
  const file = runFiles.artifact(runDir, session);
  return existsSync(file) ? readFileSync(file, "utf8") : null;
}

/** An existing verdict that may be kept: same artifact bytes, and not an infrastructure fault. */
export function reusableVerdict(runDir: string, session: string, artifact: string | null): Verdict | null {
  const file = runFiles.verdict(runDir, session);
  if (!existsSync(file)) return null;
  let parsed;
  try {
    parsed = verdictSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return null;
  }
  if (!parsed.success) return null;
  const v = parsed.data;
  if (v.infra_fault) return null;
  return v.artifact_sha256 === (artifact === null ? null : sha256(artifact)) ? v : null;
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
  if (!existsSync(root)) throw inputError(root, "", "run directory not found");
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
      problems.push({ file: runFiles.sessionDir(root, session), path: "", message: "not a session id (<focus task>.<base|switch>) and no session.json names its focus" });
      continue;
    }
    if (!tasks.has(focus)) {
      problems.push({ file: runFiles.sessionDir(root, session), path: "", message: `task ${focus} is not in the dataset ${dataset.root}` });
      continue;
    }
    jobs.push({ session, taskId: focus });
  }
  if (problems.length > 0) throw new InputError(problems);

  const result: VerifyRunResult = { verdicts: {}, reused: [], verified: [] };
  let done = 0;
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      const artifact = readArtifact(root, job.session);
      let verdict = opts.force ? null : reusableVerdict(root, job.session, artifact);
      const reused = verdict !== null;
      if (!verdict) {
        const workRoot = mkdtempSync(join(tmpdir(), "switch-swe-verify-"));
        try {
          verdict = await verifyArtifact({
            dataset,
            task: tasks.get(job.taskId)!,
            artifactText: artifact,
            workRoot,
            session: job.session,
            logFile: runFiles.verifyLog(root, job.session),
            logLabel: `sessions/${job.session}/verify.log`,
            ...(opts.maxInfraRetries !== undefined ? { maxInfraRetries: opts.maxInfraRetries } : {}),
            ...(opts.setupTimeoutMs !== undefined ? { setupTimeoutMs: opts.setupTimeoutMs } : {}),
          });
        } finally {
          rmSync(workRoot, { recursive: true, force: true, maxRetries: 3 });
        }
        writeJsonAtomic(runFiles.verdict(root, job.session), verdict);
        result.verified.push(job.session);
      } else {
        result.reused.push(job.session);
      }
      result.verdicts[job.session] = verdict;
      done++;
      opts.onProgress?.({ session: job.session, verdict, reused, done, total: jobs.length });
    }
  };
  const n = Math.max(1, Math.min(opts.concurrency ?? 2, jobs.length || 1));
  await Promise.all(Array.from({ length: n }, worker));
  result.verified.sort();
  result.reused.sort();
  return result;
}
