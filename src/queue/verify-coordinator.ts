import { readFileSync } from "node:fs";
import type { Queue } from "bullmq";
import { openQueue } from "./connect.js";
import type { Redis } from "ioredis";
import { writeFileAtomic, writeJsonAtomic } from "../core/json-file.js";
import { packageVersion } from "../core/package-paths.js";
import { runFiles } from "../formats/run-layout.js";
import type { Verdict } from "../formats/verdict.js";
import type { BackendRun } from "../run/session-backend.js";
import { parseSessionId } from "../formats/sessions.js";
import { finishedSessions, prepareVerification } from "../verify/prepare-verification.js";
import { defaultMaxArtifactMb } from "../verify/artifact-file.js";
import { verifyEvent } from "../run/verify-hook.js";
import type { Dataset } from "../dataset/load.js";
import { jobDataset, type Shipment } from "./dataset-shipment.js";
import type { VerifyJob } from "./job-schema.js";
import type { ConfineBackend } from "../confine/backend.js";
import { limitsText, type Limits } from "../confine/limits.js";
import { issueJob } from "./issue-job.js";
import { keys, verifyJobId, verifyQueue } from "./keys.js";
import type { SecuredQueue } from "./queue-secret.js";
import { decodeResult, verifyResultSchema, type VerifyResult } from "./result-schema.js";
import { sealVerdict, verdictKey } from "../formats/verdict-seal.js";

export interface QueueVerifyParams {
  runDir: string;
  dataset: Dataset;
  sessions: readonly string[];
  /** Artifacts larger than this are refused here, unread, as a local `verify` refuses them (default 256 MB). */
  maxArtifactMb?: number;
  redis: Redis;
  target: SecuredQueue;
  runId: string;
  shipment: Shipment;
  /** Each test run's confinement and limits, which the worker applies (its machine permitting). */
  confine: ConfineBackend;
  limits: Limits;
  force?: boolean;
  /** Called every few seconds while waiting (keeps the coordinator's claims alive). */
  renew?: () => Promise<void>;
  onVerdict: (e: { session: string; verdict: Verdict; reused: boolean; done: number; total: number }) => void;
  signal?: AbortSignal;
}

/** A job that failed (its worker died) is added again this many times before verification gives up. */
const maxTries = 3;

/**
 * Verifies the sessions' artifacts on the queue's workers: unchanged artifacts keep their verdict, the
 * others become one job each; every verdict and its log are written as `verify` writes them.
 */
export async function verifyOnQueue(p: QueueVerifyParams): Promise<{
  verdicts: Record<string, Verdict>;
  verified: string[];
  reused: string[];
  lost: string[];
  forged: string[];
  unauthenticated: string[];
}> {
  const out = {
    verdicts: {} as Record<string, Verdict>,
    verified: [] as string[],
    reused: [] as string[],
    lost: [] as string[],
    forged: [] as string[],
    unauthenticated: [] as string[],
  };
  const queue = await openQueue(verifyQueue, p.target);
  const pending = new Map<string, { job: VerifyJob; tries: number }>();
  // Verdicts are sealed here, with the run's key that never leaves the coordinator's run directory.
  const key = verdictKey(p.runDir);
  let done = 0;
  const total = p.sessions.length;
  try {
    for (const session of p.sessions) {
      const r = await prepare(p, session, key, out.forged);
      if (r.kind === "job") {
        pending.set(session, { job: r.job, tries: 1 });
        await issueJob(queue, p.target.secret, "verify", r.job, {
          jobId: `${verifyJobId(p.runId, session, r.job.artifact_sha256)}.1`,
          removeOnComplete: true,
          removeOnFail: { age: 7 * 24 * 3600 },
        });
        continue;
      }
      if (r.kind === "reused") out.reused.push(session);
      else out.verified.push(session);
      out.verdicts[session] = r.verdict;
      p.onVerdict({ session, verdict: r.verdict, reused: r.kind === "reused", done: ++done, total });
    }
    let lastCheck = Date.now();
    while (pending.size > 0 && !p.signal?.aborted) {
      for (const [session, w] of [...pending]) {
        const resultKey = keys.verdict(p.runId, session, w.job.artifact_sha256);
        const data = await p.redis.getBuffer(resultKey);
        if (data === null) continue;
        let r: VerifyResult;
        try {
          r = decodeResult(data, verifyResultSchema, p.target.secret, resultKey);
        } catch (e) {
          // Never taken: it goes, and the verification runs again (its worker's own verdict may be the one overwritten).
          await p.redis.del(resultKey);
          out.unauthenticated.push(`${session}: ${(e as Error).message}`);
          await requeue(queue, p, session, w, pending, out.lost);
          continue;
        }
        writeFileAtomic(runFiles.verifyLog(p.runDir, session), Buffer.from(r.log_b64, "base64"));
        const verdict = sealVerdict(r.verdict, key);
        writeJsonAtomic(runFiles.verdict(p.runDir, session), verdict);
        await p.redis.del(resultKey);
        pending.delete(session);
        out.verdicts[session] = verdict;
        out.verified.push(session);
        p.onVerdict({ session, verdict, reused: false, done: ++done, total });
      }
      if (Date.now() - lastCheck > 2000) {
        lastCheck = Date.now();
        await p.renew?.();
        await retryFailed(queue, p, pending, out.lost);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  } finally {
    await queue.close().catch(() => undefined);
  }
  out.verified.sort();
  out.reused.sort();
  return out;
}

type Prepared = { kind: "reused" | "refused"; verdict: Verdict } | { kind: "job"; job: VerifyJob };

/**
 * One session's verification prepared as a local `verify` prepares it (prepareVerification): its kept
 * verdict, a refusal written here, or the job for a worker.
 */
async function prepare(p: QueueVerifyParams, session: string, key: Buffer, forged: string[]): Promise<Prepared> {
  const maxBytes = (p.maxArtifactMb ?? defaultMaxArtifactMb) * 1024 * 1024;
  const taskId = focusTask(p.runDir, session);
  const task = p.dataset.tasks.find((t) => t.id === taskId);
  const r = await prepareVerification({ runDir: p.runDir, session, task, maxBytes, key, forged, force: p.force === true });
  if (r.kind === "kept") return { kind: "reused", verdict: r.verdict };
  if (r.kind === "refused") {
    writeFileAtomic(runFiles.verifyLog(p.runDir, session), r.log);
    const verdict = sealVerdict(r.verdict, key);
    writeJsonAtomic(runFiles.verdict(p.runDir, session), verdict);
    return { kind: "refused", verdict };
  }
  const job: VerifyJob = {
    kind: "verify",
    run_id: p.runId,
    switch_swe_version: packageVersion,
    dataset: jobDataset(p.dataset, p.shipment),
    session,
    task: taskId,
    artifact_sha256: r.sha256 ?? "none",
    artifact_b64: r.artifact.kind === "none" ? null : readFileSync(r.artifact.file).toString("base64"),
    sandbox: p.confine.mode,
    limits: limitsText(p.limits),
  };
  return { kind: "job", job };
}

/** The session's focus task: session.json's `focus`, else from the session id. */
function focusTask(runDir: string, session: string): string {
  try {
    const focus = (JSON.parse(readFileSync(runFiles.summary(runDir, session), "utf8")) as { focus?: unknown }).focus;
    if (typeof focus === "string") return focus;
  } catch {
    // no summary yet: the session id names the focus task
  }
  return parseSessionId(session)?.pairId ?? session;
}

async function retryFailed(
  queue: Queue,
  p: QueueVerifyParams,
  pending: Map<string, { job: VerifyJob; tries: number }>,
  lost: string[],
): Promise<void> {
  for (const [session, w] of [...pending]) {
    const id = `${verifyJobId(p.runId, session, w.job.artifact_sha256)}.${w.tries}`;
    const state = await queue.getJobState(id);
    if (state !== "failed" && state !== "unknown" && state !== "completed") continue;
    if ((await p.redis.exists(keys.verdict(p.runId, session, w.job.artifact_sha256))) === 1) continue;
    if (state === "failed") w.tries++;
    await requeue(queue, p, session, w, pending, lost, false);
  }
}

/** The session's verification job again, as try `w.tries` (+1 when `next`), or lost after the last try. */
async function requeue(
  queue: Queue,
  p: QueueVerifyParams,
  session: string,
  w: { job: VerifyJob; tries: number },
  pending: Map<string, unknown>,
  lost: string[],
  next = true,
): Promise<void> {
  if (next) w.tries++;
  if (w.tries > maxTries) {
    pending.delete(session);
    lost.push(session);
    return;
  }
  await issueJob(queue, p.target.secret, "verify", w.job, {
    jobId: `${verifyJobId(p.runId, session, w.job.artifact_sha256)}.${w.tries}`,
    removeOnComplete: true,
    removeOnFail: { age: 7 * 24 * 3600 },
  });
}

/** Verification at the end of `run --queue`: every finished session, on the workers. */
/** Returns the sessions whose verdict is an infrastructure fault (the rule `run` exits by). */
export async function verifyThroughQueue(a: {
  run: BackendRun;
  sessions: readonly string[];
  redis: Redis;
  target: SecuredQueue;
  runId: string;
  shipment: Shipment;
  renew: () => Promise<void>;
}): Promise<string[]> {
  const finished = finishedSessions(a.run.runDir, a.sessions);
  if (finished.length === 0) return [];
  const r = await verifyOnQueue({
    runDir: a.run.runDir,
    dataset: a.run.dataset,
    sessions: finished,
    redis: a.redis,
    target: a.target,
    runId: a.runId,
    shipment: a.shipment,
    confine: a.run.confinement.testRuns,
    limits: a.run.confinement.testRunLimits,
    renew: a.renew,
    signal: a.run.signal,
    onVerdict: (e) => a.run.progress(verifyEvent(e)),
  });
  return Object.entries(r.verdicts)
    .filter(([, v]) => v.infra_fault)
    .map(([session]) => session)
    .sort();
}
