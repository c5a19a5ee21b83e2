import type { ProgressEvent } from "./progress-events.js";
import {
  describe,
  estimateRemainingMs,
  formatDuration,
  jsonReporter,
  quietReporter,
  ttyReporter,
  type ProgressReporter,
  type WritableLike,
} from "./progress.js";

export interface LogReporterOptions {
  /** Only what a long job's log needs: run start and end, counted session ends, verification, warnings (the demo). */
  milestones?: boolean;
  /** At most one `verified n/N` line per this many ms (the first and the last always print). Default 10 s. */
  verifyEveryMs?: number;
  /** Prefix each line with the event's time (run's log); default true. */
  timestamps?: boolean;
  now?: () => number;
}

const DEFAULT_VERIFY_EVERY_MS = 10_000;

/**
 * Not a terminal (CI logs, `tee`): plain lines that say how far the job is. Each finished session is
 * counted (`session 12/72 finished`, with elapsed time and an estimate of what is left); verification
 * prints `verified n/N` at a bounded rate, so a log shows progress without a line per test run.
 */
export function logReporter(out: WritableLike, opts: LogReporterOptions = {}): ProgressReporter {
  const now = opts.now ?? Date.now;
  const every = opts.verifyEveryMs ?? DEFAULT_VERIFY_EVERY_MS;
  const started = now();
  const c = { total: 0, ended: 0, requestsTotal: 0, requestsDone: 0, lastVerify: Number.NEGATIVE_INFINITY };
  const write = (e: ProgressEvent, text: string) => out.write(`${opts.timestamps === false ? "" : `${e.time} `}${text}\n`);

  const sessionLine = (e: Extract<ProgressEvent, { type: "session_end" }>): string | null => {
    if (e.status === "infra_fault" && e.retry) return describe(e);
    c.ended++;
    const elapsed = now() - started;
    const left = estimateRemainingMs(elapsed, c.requestsDone, c.requestsTotal);
    const status = e.status === "finished" ? "finished" : e.status === "infra_fault" ? "infra fault (no retries left)" : e.status;
    const detail = e.detail ? `: ${e.detail.split("\n")[0]!.slice(0, 200)}` : "";
    return `session ${c.ended}/${c.total} ${status}: ${e.session} (attempt ${e.attempt})${detail} · elapsed ${formatDuration(elapsed)} · left ${left === null ? "--:--:--" : `~${formatDuration(left)}`}`;
  };

  const verifyLine = (e: Extract<ProgressEvent, { type: "verify" }>): string | null => {
    const t = now();
    if (e.done !== 1 && e.done !== e.total && t - c.lastVerify < every) return null;
    c.lastVerify = t;
    return `verified ${e.done}/${e.total}: ${e.session} ${e.infra_fault ? "infrastructure fault" : e.resolved ? "resolved" : "not resolved"}${e.reused ? " (kept)" : ""}`;
  };

  return {
    emit: (e) => {
      let text: string | null = null;
      switch (e.type) {
        case "run_start":
          // Sessions finished by an earlier invocation count as done: n/N is of the whole run.
          Object.assign(c, { total: e.sessions, ended: e.skipped, requestsTotal: e.requests });
          text = describe(e);
          break;
        case "request_end":
          if (e.outcome !== "timeout") c.requestsDone++;
          text = opts.milestones ? null : describe(e);
          break;
        case "session_end":
          text = sessionLine(e);
          break;
        case "verify":
          text = verifyLine(e);
          break;
        case "warning":
        case "run_end":
          text = describe(e);
          break;
        default:
          text = opts.milestones ? null : describe(e);
      }
      if (text !== null) write(e, text);
    },
    close: () => undefined,
  };
}

/** The reporter for the CLI flags and the output stream: JSON lines, nothing, the live block on a terminal, else the log. */
export function reporterFor(opts: { quiet: boolean; json: boolean }, stdout: WritableLike, stderr: WritableLike): ProgressReporter {
  if (opts.json) return jsonReporter(stdout);
  if (opts.quiet) return quietReporter();
  return stderr.isTTY ? ttyReporter(stderr) : logReporter(stderr);
}
