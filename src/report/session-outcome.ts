import type { SessionInput, TaskTests } from "./read-run.js";
import type { UnresolvedReason } from "./report-schema.js";

export interface SessionOutcome {
  status: "resolved" | "unresolved";
  reason: UnresolvedReason | null;
  detail: string | null;
  finalized: boolean | null;
  attempts: number;
}

/** Why a session counts as resolved or not; the order of the checks is the order of docs/report-format.md. Pure. */
export function sessionOutcome(s: SessionInput | undefined): SessionOutcome {
  const t = s?.trajectory ?? null;
  const summary = s?.summary ?? null;
  const summaryAttempts = Array.isArray(summary?.attempts) ? summary.attempts.length : (summary?.attempts ?? 0);
  const attempts = Math.max(t?.attempts ?? 0, t?.last_attempt ?? 0, summaryAttempts);
  const finalized = t?.ended?.finalized ?? summary?.finalized ?? null;
  const out = (reason: UnresolvedReason | null, detail: string | null): SessionOutcome => ({
    status: reason === null ? "resolved" : "unresolved",
    reason,
    detail,
    finalized,
    attempts,
  });
  if (!s || (!t && !summary)) return out("not run", null);
  if (finalized !== true) {
    const status = t?.ended?.status ?? summary?.status ?? null;
    const reason = t?.ended?.reason ?? summary?.reason ?? null;
    // A failed session (infrastructure faults beyond the retries, or a harness failure) says nothing about
    // the agent; an interrupted one is a run that was stopped before the session ended.
    if ((t?.infra_faults_last ?? 0) > 0 || (status === "failed" && !reason?.startsWith("interrupted"))) {
      return out("infra fault", `run: ${reason ?? "infrastructure fault during the session"}`);
    }
    const why = reason ?? (t && !t.ended ? "the trajectory has no session_end (cut off or still running)" : null);
    return out("not finalized", why ?? (status === "finished" ? "the finalization request did not end with the agent yielding" : null));
  }
  const v = s.verdict;
  if (!v) return out("no verdict", s.verdictProblem);
  if (v.infra_fault) return out("infra fault", `verify: ${v.infra_reason ?? "infrastructure fault"}`);
  if (v.resolved && v.suspicious && !s.trustSuspicious)
    return out("suspicious", (v.suspicious_reasons ?? []).join("; ") || "suspicious verdict");
  if (v.resolved) return out(null, null);
  if (!v.applied) return out("did not apply", v.apply_error ?? null);
  return out("tests failed", `F2P ${v.fail_to_pass.passed}/${v.fail_to_pass.total}, P2P ${v.pass_to_pass.passed}/${v.pass_to_pass.total}`);
}

/** Any attempt of the session hit an infrastructure fault (trajectory outcomes, its end, or session.json's attempts). */
export function hadRunInfraFault(s: SessionInput | undefined): boolean {
  const t = s?.trajectory;
  if (t && (t.infra_faults > 0 || t.ended?.reason?.startsWith("infra_fault"))) return true;
  const attempts = s?.summary?.attempts;
  return (
    Array.isArray(attempts) &&
    attempts.some((a) => typeof a === "object" && a !== null && (a as { status?: unknown }).status === "infra_fault")
  );
}

/** Stages (1-based) with at least one F2P test not passed; null when the task has no test-to-stage map. Pure. */
export function failedStages(tests: Record<string, string>, task: TaskTests | undefined): number[] | null {
  if (!task || task.f2pStage.size === 0) return null;
  const failed = new Set<number>();
  for (const [id, stage] of task.f2pStage) if (tests[id] !== "passed") failed.add(stage);
  return [...failed].sort((a, b) => a - b);
}
