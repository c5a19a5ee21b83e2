import { writeJsonAtomic } from "../core/json-file.js";
import type { AttemptSummary } from "./controller.js";
import { runFiles } from "../formats/run-layout.js";
import type { Ledger } from "./ledger.js";
import type { SessionSummary } from "../formats/session-summary.js";

/** session.json of an attempt, with the ledger's list of attempts (`current` overrides its own row). */
export function writeSummary(
  runDir: string,
  summary: AttemptSummary,
  ledger: Ledger,
  current: { attempt: number; status: string; detail: string | null } | null,
): void {
  const attempts = ledger.attempts(summary.session).map((r) => ({ attempt: r.attempt, status: r.status as string, detail: r.detail }));
  if (current) {
    const i = attempts.findIndex((a) => a.attempt === current.attempt);
    if (i >= 0) attempts[i] = current;
  }
  const full: SessionSummary = { ...summary, attempts };
  writeJsonAtomic(runFiles.summary(runDir, summary.session), full);
}
