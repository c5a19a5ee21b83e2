import type { ProgressEvent } from "./progress-events.js";

export interface ProgressReporter {
  emit(event: ProgressEvent): void;
  close(): void;
}

export interface WritableLike {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(h)}:${pad(m)}:${pad(s % 60)}`;
}

/**
 * Time left, from the pace so far: requests done in this invocation against requests still to do.
 * Null until the first request has finished.
 */
export function estimateRemainingMs(elapsedMs: number, requestsDone: number, requestsTotal: number): number | null {
  if (requestsDone <= 0) return null;
  return (elapsedMs / requestsDone) * Math.max(0, requestsTotal - requestsDone);
}

/** --quiet: nothing. */
export function quietReporter(): ProgressReporter {
  return { emit: () => undefined, close: () => undefined };
}

/** --json: one JSON object per event. */
export function jsonReporter(out: WritableLike): ProgressReporter {
  return { emit: (e) => out.write(`${JSON.stringify(e)}\n`), close: () => undefined };
}

/** The one-line description of an event used by the plain reporter and the live display's log. */
export function describe(e: ProgressEvent): string | null {
  switch (e.type) {
    case "run_start":
      return `run ${e.run_dir}: ${e.sessions} sessions${e.skipped ? `, ${e.skipped} already finished` : ""}, concurrency ${e.concurrency}`;
    case "session_start":
      return `${e.session}: attempt ${e.attempt} started (${e.requests} requests)`;
    case "workspaces_ready":
      return `${e.session}: workspaces ready in ${(e.duration_ms / 1000).toFixed(1)} s`;
    case "request_start":
      return `${e.session}: request ${e.index + 1}/${e.requests} (${e.kind}, ${e.workspace})${e.continuation ? " continuation" : ""}`;
    case "request_end":
      return `${e.session}: request ${e.index + 1} ${e.outcome} in ${(e.duration_ms / 1000).toFixed(1)} s${e.detail ? `: ${firstLine(e.detail)}` : ""}`;
    case "session_end":
      return `${e.session}: attempt ${e.attempt} ${e.status}${e.status === "infra_fault" ? (e.retry ? " (retrying)" : " (no retries left)") : ""}${e.detail ? `: ${firstLine(e.detail)}` : ""}`;
    case "verify":
      return `verify ${e.done}/${e.total} ${e.session}: ${e.infra_fault ? "infrastructure fault" : e.resolved ? "resolved" : "not resolved"}${e.reused ? " (kept)" : ""}`;
    case "warning":
      return `warning: ${e.session ? `${e.session}: ` : ""}${e.message}`;
    case "run_end":
      return `run ${e.interrupted ? "stopped" : "done"}: ${e.finished} finished, ${e.failed} failed, ${e.skipped} skipped, ${formatDuration(e.elapsed_ms)}`;
  }
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

interface Running {
  session: string;
  attempt: number;
  request: string;
  since: number;
}

interface TtyCounts {
  total: number;
  skipped: number;
  done: number;
  failed: number;
  requestsTotal: number;
  requestsDone: number;
  running: Map<string, Running>;
}

const yellow = (text: string) => `\x1b[33m${text}\x1b[0m`;

/** Updates the live block's counts with one event; returns the line to scroll above it, if any. */
function track(c: TtyCounts, e: ProgressEvent, now: number): string | null {
  switch (e.type) {
    case "run_start":
      Object.assign(c, { total: e.sessions, skipped: e.skipped, requestsTotal: e.requests });
      return describe(e);
    case "session_start":
      c.running.set(e.session, { session: e.session, attempt: e.attempt, request: "setting up workspaces", since: now });
      return null;
    case "request_start": {
      const r = c.running.get(e.session);
      if (r)
        Object.assign(r, {
          request: `request ${e.index + 1}/${e.requests} ${e.kind} ${e.workspace}${e.continuation ? " (continuation)" : ""}`,
          since: now,
        });
      return null;
    }
    case "request_end":
      if (e.outcome !== "timeout") c.requestsDone++;
      return e.outcome === "timeout" || e.outcome === "agent_error" ? yellow(describe(e)!) : null;
    case "session_end":
      c.running.delete(e.session);
      if (e.status === "finished") c.done++;
      else if (e.status === "failed" || (e.status === "infra_fault" && !e.retry)) c.failed++;
      return describe(e);
    case "warning":
      return yellow(describe(e)!);
    case "verify":
      return describe(e);
    default:
      return null;
  }
}

/**
 * A terminal: a live block (sessions done of total, each running session's current request, elapsed,
 * time left) redrawn in place with plain ANSI; session ends and warnings scroll above it.
 */
export function ttyReporter(out: WritableLike, now: () => number = Date.now): ProgressReporter {
  const started = now();
  const c: TtyCounts = { total: 0, skipped: 0, done: 0, failed: 0, requestsTotal: 0, requestsDone: 0, running: new Map() };
  let drawn = 0;
  let timer: NodeJS.Timeout | undefined;

  const clear = () => {
    if (drawn > 0) out.write(`\x1b[${drawn}A\x1b[0J`);
    drawn = 0;
  };
  const width = () => Math.max(40, (out.columns ?? 100) - 1);
  const draw = () => {
    clear();
    const elapsed = now() - started;
    const eta = estimateRemainingMs(elapsed, c.requestsDone, c.requestsTotal);
    const lines = [
      `${c.done}/${c.total} sessions done${c.failed ? `, ${c.failed} failed` : ""}${c.skipped ? `, ${c.skipped} finished earlier` : ""} · elapsed ${formatDuration(elapsed)} · left ${eta === null ? "--:--:--" : formatDuration(eta)}`,
      ...[...c.running.values()].map((r) => `  ${r.session} #${r.attempt}  ${r.request}  ${formatDuration(now() - r.since)}`),
    ].map((l) => (l.length > width() ? `${l.slice(0, width() - 1)}…` : l));
    out.write(`${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  const log = (text: string) => {
    clear();
    out.write(`${text}\n`);
  };

  return {
    emit: (e) => {
      if (e.type === "run_end") {
        if (timer) clearInterval(timer);
        timer = undefined;
        c.running.clear();
        draw();
        drawn = 0;
        log(describe(e)!);
        return;
      }
      const line = track(c, e, now());
      if (e.type === "run_start") {
        timer = setInterval(draw, 1000);
        timer.unref();
      }
      if (line !== null) log(line);
      draw();
    },
    close: () => {
      if (timer) clearInterval(timer);
    },
  };
}
