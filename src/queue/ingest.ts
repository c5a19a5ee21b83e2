import { runFiles } from "../formats/run-layout.js";
import { emptyUsage, usageOf } from "../formats/usage.js";
import type { AttemptSummary } from "../run/controller.js";
import type { Ledger } from "../run/ledger.js";
import { writeSummary } from "../run/write-summary.js";
import { archivePreviousAttempt } from "../run/session-dir.js";
import { workspaceNames } from "../formats/sessions.js";
import type { SessionJob } from "./job-schema.js";
import type { SessionResult } from "./result-schema.js";
import { writeSessionFiles } from "./session-files.js";
import { writeFileAtomic } from "../core/json-file.js";

/** Whether the ledger still expects a result for this attempt (a second copy of a result is dropped). */
export function attemptOpen(ledger: Ledger, session: string, attempt: number): boolean {
  return ledger.attempts(session).some((r) => r.attempt === attempt && r.status === "running");
}

/**
 * Writes a worker's result into the run directory as a local run would have: the previous attempt's
 * trajectory archived, this attempt's files, then session.json, then the ledger (same order as local).
 */
export function ingestSessionResult(runDir: string, ledger: Ledger, r: SessionResult): void {
  const sessionDir = runFiles.sessionDir(runDir, r.session);
  archivePreviousAttempt(sessionDir);
  writeSessionFiles(sessionDir, r.files);
  if (r.outcome === "finished" && r.summary) {
    writeSummary(runDir, r.summary, ledger, { attempt: r.attempt, status: "finished", detail: null });
    ledger.end(r.session, r.attempt, "finished");
  } else {
    ledger.end(r.session, r.attempt, r.outcome === "finished" ? "failed" : r.outcome, r.detail ?? undefined);
  }
}

/**
 * An attempt whose worker died or hung: the trajectory it had sent so far becomes the session's current
 * trajectory (the next attempt archives it, as a local restart does), and the ledger says why.
 */
export function recordLostAttempt(
  runDir: string,
  ledger: Ledger,
  session: string,
  attempt: number,
  trajectory: Buffer | null,
  detail: string,
): void {
  const sessionDir = runFiles.sessionDir(runDir, session);
  archivePreviousAttempt(sessionDir);
  if (trajectory && trajectory.length > 0) writeFileAtomic(runFiles.trajectory(runDir, session), trajectory);
  ledger.end(session, attempt, "infra_fault", detail);
}

/** The summary of an attempt that left none (its worker died): nothing delivered that is known. */
export function lostAttemptSummary(job: SessionJob, reason: string): AttemptSummary {
  const now = new Date().toISOString();
  const focus = workspaceNames.find((w) => job.pair.workspaces[w] === job.pair.focus) ?? "w00";
  return {
    format: "switch-swe.session/1",
    session: job.session,
    pair: job.pair.id,
    focus: job.pair.focus,
    condition: job.condition,
    status: "failed",
    reason,
    finalized: false,
    attempt: job.attempt,
    conversation: null,
    started_at: now,
    ended_at: now,
    duration_ms: 0,
    requests: { scheduled: job.pair.schedules[job.condition].length, delivered: 0, yielded: 0, timeout: 0, agent_error: 0 },
    timeouts: 0,
    continuations: 0,
    usage: usageOf(emptyUsage()),
    artifact: null,
    workspaces: {},
    focus_workspace: focus,
  };
}
