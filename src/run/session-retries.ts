import { AttemptAborted, runSessionAttempt } from "./controller.js";
import type { Ledger } from "./ledger.js";
import { nowIso } from "./progress-events.js";
import { firstLine, fullDiskBehind, isDiskFull } from "../core/disk-full.js";
import type { SelectedSession } from "./session-selection.js";
import { attemptWorkDir } from "./session-dir.js";
import type { RunOptions } from "./run-options.js";
import type { Prepared } from "./prepare-run.js";
import { writeSummary } from "./write-summary.js";

/** One session: its attempts until one finishes, an infrastructure fault retried up to run.json's max_infra_retries. */
export async function runWithRetries(
  s: SelectedSession,
  prep: Prepared,
  ledger: Ledger,
  opts: RunOptions,
  signal: AbortSignal,
): Promise<"finished" | "failed" | "interrupted"> {
  const { runDir, config } = prep;
  let last: AttemptAborted | null = null;
  for (let tries = 0; tries <= config.max_infra_retries; tries++) {
    if (signal.aborted) return "interrupted";
    const workDirOf = (n: number) => attemptWorkDir(runDir, config.created_at, s.session, n);
    const attempt = ledger.begin(s.session, workDirOf);
    try {
      const summary = await runSessionAttempt({
        runDir,
        dataset: prep.dataset,
        pair: s.pair,
        condition: s.condition,
        session: s.session,
        attempt,
        workDir: workDirOf(attempt),
        agent: prep.agent,
        runSeed: config.seed,
        requestTimeoutMs: config.request_timeout_s * 1000,
        maxContinuations: config.max_continuations,
        keepWorkspaces: opts.keepWorkspaces,
        submission: config.submission ?? "checkout",
        sandbox: prep.confinement.agent,
        limits: prep.confinement.sessionLimits,
        signal,
        progress: opts.progress,
      });
      // session.json first, then the ledger: a crash in between restarts the session, never loses it.
      writeSummary(runDir, summary, ledger, { attempt, status: "finished", detail: null });
      ledger.end(s.session, attempt, "finished");
      opts.progress({ type: "session_end", time: nowIso(), session: s.session, attempt, status: "finished" });
      return "finished";
    } catch (e) {
      const full = signal.aborted ? null : fullDiskBehind(e, runDir);
      if (full) {
        // Not the agent's doing, and no retry helps until there is space: the run stops (see runSessions).
        endOnFullDisk(ledger, opts, s.session, attempt, full);
        throw full;
      }
      if (!(e instanceof AttemptAborted)) {
        // A harness error outside the attempt's own handling: this session fails, the others go on.
        const detail = e instanceof Error ? (e.stack ?? e.message) : String(e);
        ledger.end(s.session, attempt, "failed", detail);
        opts.progress({ type: "session_end", time: nowIso(), session: s.session, attempt, status: "failed", detail });
        return "failed";
      }
      last = e;
      ledger.end(s.session, attempt, e.kind, e.message);
      const retry = e.kind === "infra_fault" && tries < config.max_infra_retries && !signal.aborted;
      opts.progress({ type: "session_end", time: nowIso(), session: s.session, attempt, status: e.kind, retry, detail: e.message });
      if (e.kind === "interrupted") return "interrupted";
      if (!retry) break;
    }
  }
  if (last) writeSummary(runDir, last.partial, ledger, null);
  return "failed";
}

/** Records the attempt as an infrastructure fault where the ledger still can (else --resume marks it cut off). */
function endOnFullDisk(ledger: Ledger, opts: RunOptions, session: string, attempt: number, e: unknown): void {
  const detail = `the disk is full: ${firstLine(e)}`;
  try {
    ledger.end(session, attempt, "infra_fault", detail);
  } catch (again) {
    if (!isDiskFull(again)) throw again;
  }
  opts.progress({ type: "session_end", time: nowIso(), session, attempt, status: "infra_fault", retry: false, detail });
}
