import { existsSync, readFileSync } from "node:fs";
import { verifyRun } from "../verify/run-verify.js";
import type { ConfineBackend } from "../confine/backend.js";
import type { Limits } from "../confine/limits.js";
import { runFiles } from "../formats/run-layout.js";
import { nowIso, type ProgressSink } from "./progress-events.js";

/** Sessions of the run whose session.json says finished (failed sessions have nothing to verify). */
function finishedSessions(runDir: string, sessions: readonly string[]): string[] {
  return sessions.filter((s) => {
    const file = runFiles.summary(runDir, s);
    if (!existsSync(file)) return false;
    try {
      return (JSON.parse(readFileSync(file, "utf8")) as { status?: string }).status === "finished";
    } catch {
      return false;
    }
  });
}

/**
 * The one place `run` hands over to verification (unless --no-verify): every finished session of the
 * run; verdicts of unchanged artifacts from an earlier invocation are kept. Returns the sessions
 * whose verdict is an infrastructure fault.
 */
export async function verifyAfterRun(runDir: string, sessions: readonly string[], concurrency: number, progress: ProgressSink, confine: ConfineBackend, limits: Limits): Promise<string[]> {
  const chosen = finishedSessions(runDir, sessions);
  if (chosen.length === 0) return [];
  const result = await verifyRun(runDir, {
    confine,
    limits,
    sessions: chosen,
    concurrency: Math.max(1, concurrency),
    onProgress: (p) =>
      progress({
        type: "verify",
        time: nowIso(),
        session: p.session,
        resolved: p.verdict.resolved,
        infra_fault: p.verdict.infra_fault,
        reused: p.reused,
        done: p.done,
        total: p.total,
      }),
  });
  return Object.values(result.verdicts).filter((v) => v.infra_fault).map((v) => v.session);
}
