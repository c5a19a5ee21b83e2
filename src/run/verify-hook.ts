import { verifyRun } from "../verify/run-verify.js";
import { finishedSessions } from "../verify/prepare-verification.js";
import type { Verdict } from "../formats/verdict.js";
import type { ConfineBackend } from "../confine/backend.js";
import type { Limits } from "../confine/limits.js";
import { nowIso, type ProgressEvent, type ProgressSink } from "./progress-events.js";

/**
 * The one place `run` hands over to verification (unless --no-verify): every finished session of the
 * run; verdicts of unchanged artifacts from an earlier invocation are kept. Returns the sessions
 * whose verdict is an infrastructure fault.
 */
export async function verifyAfterRun(
  runDir: string,
  sessions: readonly string[],
  concurrency: number,
  progress: ProgressSink,
  confine: ConfineBackend,
  limits: Limits,
): Promise<string[]> {
  const chosen = finishedSessions(runDir, sessions);
  if (chosen.length === 0) return [];
  const result = await verifyRun(runDir, {
    confine,
    limits,
    sessions: chosen,
    concurrency: Math.max(1, concurrency),
    onProgress: (p) => progress(verifyEvent(p)),
  });
  return Object.values(result.verdicts)
    .filter((v) => v.infra_fault)
    .map((v) => v.session);
}

/** The progress event of one verdict, whether the run verified here or on the queue's workers. */
export function verifyEvent(e: { session: string; verdict: Verdict; reused: boolean; done: number; total: number }): ProgressEvent {
  return {
    type: "verify",
    time: nowIso(),
    session: e.session,
    resolved: e.verdict.resolved,
    infra_fault: e.verdict.infra_fault,
    reused: e.reused,
    done: e.done,
    total: e.total,
  };
}
