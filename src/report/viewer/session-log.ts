import { existsSync, readFileSync } from "node:fs";
import { tokenTotal, trajectoryLineSchema, type AgentEvent, type TrajectoryLine } from "../../formats/trajectory.js";
import type { ProxyLogEntry } from "../../formats/rcm-proxy-log.js";
import { fastAgentEvent } from "../trajectory-summary.js";
import type { Clipped, SessionLog, ViewerEvent, ViewerRequest } from "./session-log-types.js";

/** How much of one text the page keeps: enough to read a call, bounded so a 400-session page stays small. */
const maxText = 4000;

function clip(text: string, max = maxText): Clipped {
  return { text: text.length > max ? text.slice(0, max) : text, length: text.length };
}

function argsText(args: unknown): Clipped | null {
  if (args === undefined) return null;
  return clip(typeof args === "string" ? args : JSON.stringify(args, null, 1));
}

function contextSummary(x: ProxyLogEntry): string {
  const why = x.reason ?? x.error;
  const parts = [`RCM ${x.mode}: ${x.action.replace("_", " ")}${why ? ` (${why})` : ""}`];
  if (x.step)
    parts.push(
      `task ${x.step.active ?? "?"} at ${x.step.confidence.toFixed(2)}`,
      `${x.dropped?.length ?? 0} group(s) dropped, ${x.elided?.length ?? 0} elided`,
      `record ${x.step.record_chars} chars`,
    );
  return parts.join(" · ");
}

function viewerEvent(e: AgentEvent): ViewerEvent {
  switch (e.kind) {
    case "model_call": {
      const all = tokenTotal(e);
      const out = e.output_tokens + (e.reasoning_in_output ? 0 : (e.reasoning_tokens ?? 0));
      return {
        kind: "model_call",
        model: e.model ?? null,
        tokens_in: all - out,
        tokens_out: out,
        cost_usd: e.cost_usd ?? null,
        auxiliary: e.auxiliary === true,
      };
    }
    case "tool_call":
      // The fast path of trajectory-summary.ts checks a tool call's name only: the rest is taken by type.
      return {
        kind: "tool_call",
        name: e.name,
        args: argsText(e.args),
        status: typeof e.status === "string" ? e.status : null,
        paths: Array.isArray(e.paths) ? e.paths.filter((p): p is string => typeof p === "string") : [],
        output: typeof e.output === "string" ? clip(e.output) : null,
      };
    case "text":
      return { kind: "text", text: clip(e.text) };
    case "error":
      return { kind: "error", message: clip(e.message) };
    case "context":
      return { kind: "context", summary: contextSummary(e.entry) };
  }
}

function emptyRequest(index: number): ViewerRequest {
  return {
    index,
    message: null,
    started: null,
    ended: null,
    duration_ms: null,
    deliveries: 0,
    outcome: null,
    tokens_in: 0,
    tokens_out: 0,
    cost_usd: null,
    model_calls: 0,
    tool_calls: 0,
    models: [],
    events: [],
    changed: {},
  };
}

/** Folds the lines of one trajectory into the viewer's per-request log; only the last attempt is kept. Pure. */
export function foldSessionLog(lines: Iterable<TrajectoryLine | null>): SessionLog {
  let log: SessionLog = { attempt: 0, requests: [], skipped_lines: 0 };
  const byIndex = new Map<number, ViewerRequest>();
  const at = (i: number): ViewerRequest => {
    let r = byIndex.get(i);
    if (!r) byIndex.set(i, (r = emptyRequest(i)));
    return r;
  };
  for (const line of lines) {
    if (line === null) {
      log.skipped_lines++;
      continue;
    }
    if (line.type === "session_start") {
      log = { attempt: line.attempt, requests: [], skipped_lines: 0 };
      byIndex.clear();
    } else if (line.type === "request_start") {
      const r = at(line.index);
      r.deliveries++;
      r.message ??= clip(line.message);
      r.started ??= line.time;
    } else if (line.type === "request_end") {
      const r = at(line.index);
      r.ended = line.time;
      r.outcome = line.outcome;
      r.duration_ms = (r.duration_ms ?? 0) + line.duration_ms;
    } else if (line.type === "agent_event") {
      const r = at(line.index);
      const e = viewerEvent(line.event);
      r.events.push(e);
      if (e.kind === "model_call") {
        r.model_calls++;
        r.tokens_in += e.tokens_in;
        r.tokens_out += e.tokens_out;
        if (e.cost_usd !== null) r.cost_usd = (r.cost_usd ?? 0) + e.cost_usd;
        if (e.model !== null && !r.models.includes(e.model)) r.models.push(e.model);
      } else if (e.kind === "tool_call") r.tool_calls++;
    } else if (line.type === "workspace_state" && line.index !== undefined) {
      const r = at(line.index);
      for (const [w, list] of Object.entries(line.changed)) if (list && list.length > 0) r.changed[w] = [...(r.changed[w] ?? []), ...list];
    }
  }
  log.requests = [...byIndex.values()].sort((a, b) => a.index - b.index);
  return log;
}

function parseLine(text: string): TrajectoryLine | null {
  try {
    const raw: unknown = JSON.parse(text);
    const fast = fastAgentEvent(raw);
    if (fast) return fast;
    const parsed = trajectoryLineSchema.safeParse(raw);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Reads one trajectory.jsonl into the viewer's log (null when the file is missing). */
export function readSessionLog(file: string): SessionLog | null {
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map(parseLine);
  return foldSessionLog(lines);
}
