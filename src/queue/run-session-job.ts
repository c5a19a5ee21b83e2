import { rmSync } from "node:fs";
import type { Agent } from "../agents/types.js";
import { parseLimits } from "../confine/limits.js";
import { agentConfinementOfJob } from "../confine/confinement.js";
import type { Dataset } from "../dataset/load.js";
import { runFiles } from "../formats/run-layout.js";
import type { ProgressSink } from "../run/progress-events.js";
import { AttemptAborted, runSessionAttempt, type AttemptSummary } from "../run/controller.js";
import { attemptWorkDir } from "../run/session-dir.js";
import type { SessionJob } from "./job-schema.js";
import type { SessionResult } from "./result-schema.js";
import { readSessionFiles } from "./session-files.js";

export interface SessionJobContext {
  job: SessionJob;
  dataset: Dataset;
  agent: Agent;
  /** The worker's private run directory for this run (stands in for RUN_DIR). */
  shadowRunDir: string;
  worker: string;
  signal: AbortSignal;
  progress: ProgressSink;
}

/**
 * Runs one attempt exactly as a local run would (the same controller and agents) in the worker's own
 * directory, then gathers everything the attempt wrote for the coordinator.
 */
export async function runSessionJob(c: SessionJobContext): Promise<SessionResult> {
  const { job } = c;
  const sessionDir = runFiles.sessionDir(c.shadowRunDir, job.session);
  rmSync(sessionDir, { recursive: true, force: true });
  let outcome: SessionResult["outcome"] = "finished";
  let detail: string | null = null;
  let summary: AttemptSummary | null = null;
  try {
    summary = await runSessionAttempt({
      runDir: c.shadowRunDir,
      dataset: c.dataset,
      pair: job.pair,
      condition: job.condition,
      session: job.session,
      attempt: job.attempt,
      workDir: attemptWorkDir(c.shadowRunDir, job.run_created_at, job.session, job.attempt),
      agent: c.agent,
      runSeed: job.seed,
      requestTimeoutMs: job.request_timeout_s * 1000,
      maxContinuations: job.max_continuations,
      sandbox: agentConfinementOfJob(job.sandbox, "session job"),
      // What this machine cannot enforce the controller records as a warning of the session.
      limits: job.limits === null ? null : parseLimits(job.limits, "session job: limits"),
      keepWorkspaces: false,
      submission: job.submission ?? "checkout",
      signal: c.signal,
      progress: c.progress,
    });
  } catch (e) {
    if (e instanceof AttemptAborted) {
      outcome = e.kind;
      detail = e.message;
      summary = e.partial;
    } else {
      // A harness error outside the attempt's own handling: the session fails, as in a local run.
      outcome = "failed";
      detail = e instanceof Error ? (e.stack ?? e.message) : String(e);
    }
  }
  const files = readSessionFiles(sessionDir);
  rmSync(sessionDir, { recursive: true, force: true });
  return {
    format: "switch-swe.queue-result/1",
    session: job.session,
    attempt: job.attempt,
    worker: c.worker,
    outcome,
    detail,
    summary,
    files,
  };
}
