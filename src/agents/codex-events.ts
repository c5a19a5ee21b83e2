import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ModelCallEvent } from "../formats/trajectory.js";
import type { InvocationParser, InvocationSummary } from "./cli-conversation.js";
import { clip, jsonLine, num, obj, plainLine, str, type Json } from "./event-helpers.js";
import type { EventSink } from "./types.js";

/** Codex's cumulative token usage of a thread (`total_token_usage`, `turn.completed.usage`). */
export interface CodexUsage {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
}

export const zeroUsage: CodexUsage = { input: 0, cached: 0, output: 0, reasoning: 0 };

export function codexUsage(u: unknown): CodexUsage {
  const o = obj(u);
  return {
    input: num(o.input_tokens),
    cached: num(o.cached_input_tokens),
    output: num(o.output_tokens),
    reasoning: num(o.reasoning_output_tokens),
  };
}

/**
 * One model call from the difference of two cumulative usages, or null when nothing was added.
 * OpenAI counts cached input inside input and reasoning inside output.
 */
export function callFromDifference(before: CodexUsage, after: CodexUsage, model: string | undefined): ModelCallEvent | null {
  const d = {
    input: after.input - before.input,
    cached: after.cached - before.cached,
    output: after.output - before.output,
    reasoning: after.reasoning - before.reasoning,
  };
  if (d.input <= 0 && d.output <= 0) return null;
  const cached = Math.max(0, d.cached);
  return {
    kind: "model_call",
    ...(model ? { model } : {}),
    input_tokens: Math.max(0, d.input - cached),
    cached_input_tokens: cached,
    output_tokens: Math.max(0, d.output),
    reasoning_tokens: Math.max(0, d.reasoning),
    reasoning_in_output: true,
  };
}

/** The rollout file of a thread under CODEX_HOME/sessions (…/rollout-<time>-<thread>.jsonl), or null. */
export function findRollout(codexHome: string, thread: string): string | null {
  const root = join(codexHome, "sessions");
  if (!existsSync(root)) return null;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) stack.push(join(dir, entry.name));
      else if (entry.name.endsWith(`-${thread}.jsonl`)) return join(dir, entry.name);
    }
  }
  return null;
}

/** Complete lines of a file from a byte offset; the new offset is just after the last complete line. */
export function readNewLines(file: string, offset: number): { lines: string[]; offset: number } {
  const size = statSync(file).size;
  if (size <= offset) return { lines: [], offset };
  const buf = Buffer.alloc(size - offset);
  const fd = openSync(file, "r");
  try {
    readSync(fd, buf, 0, buf.length, offset);
  } finally {
    closeSync(fd);
  }
  const text = buf.toString("utf8");
  const end = text.lastIndexOf("\n");
  if (end < 0) return { lines: [], offset };
  return { lines: text.slice(0, end).split("\n"), offset: offset + Buffer.byteLength(text.slice(0, end + 1)) };
}

/** The cumulative totals of the `token_count` events among rollout lines, in order. */
export function rolloutTotals(lines: readonly string[]): CodexUsage[] {
  const out: CodexUsage[] = [];
  for (const line of lines) {
    const e = jsonLine(line);
    const p = obj(e?.payload);
    if (e?.type !== "event_msg" || p.type !== "token_count") continue;
    const info = obj(p.info);
    if (info.total_token_usage !== undefined) out.push(codexUsage(info.total_token_usage));
  }
  return out;
}

/** State of a Codex thread that outlives one invocation. */
export interface CodexThreadState {
  thread: string | null;
  /** The thread's cumulative usage before this invocation. */
  usage: CodexUsage;
  /** Bytes of the rollout file already read. */
  rolloutOffset: number;
}

/**
 * Reads `codex exec --json`. Items become text and tool_call events; the thread id comes from
 * `thread.started`. Usage is cumulative per thread: one model_call per inference step from the
 * differences between consecutive `token_count` totals in the thread's rollout file (when
 * `codexHome` is given and the file is found), else one model_call for the whole invocation from the
 * difference of `turn.completed.usage` to the previous invocation's.
 */
export class CodexParser implements InvocationParser {
  private turnUsage: CodexUsage | null = null;
  private error: string | undefined;

  constructor(
    private readonly state: CodexThreadState,
    private readonly model: string | undefined,
    private readonly codexHome: string | null,
  ) {}

  line(line: string, emit: EventSink): void {
    const e = jsonLine(line);
    if (!e) return plainLine(line).forEach(emit);
    if (e.type === "thread.started" && str(e.thread_id)) this.state.thread = str(e.thread_id)!;
    else if (e.type === "item.completed") this.item(obj(e.item), emit);
    else if (e.type === "turn.completed") this.turnUsage = codexUsage(e.usage);
    else if (e.type === "turn.failed") this.error = clip(str(obj(e.error).message) ?? "turn failed", 1000);
    // Top-level `error` events also report retries that may still succeed; turn.failed is the verdict.
    else if (e.type === "error" && str(e.message)) emit({ kind: "text", text: clip(`codex: ${str(e.message)!}`) });
  }

  private item(item: Json, emit: EventSink): void {
    switch (item.type) {
      case "agent_message":
        if (str(item.text)?.trim()) emit({ kind: "text", text: str(item.text)! });
        return;
      case "command_execution": {
        const code = item.exit_code;
        emit({
          kind: "tool_call",
          name: "exec_command",
          args: { command: item.command },
          status: code === 0 ? "completed" : `exit ${String(code ?? item.status ?? "?")}`,
          output: clip(str(item.aggregated_output) ?? ""),
        });
        return;
      }
      case "file_change": {
        const changes = Array.isArray(item.changes) ? (item.changes as unknown[]).map(obj) : [];
        const paths = changes.flatMap((c) => (str(c.path) ? [str(c.path)!] : []));
        emit({
          kind: "tool_call",
          name: "apply_patch",
          args: { changes },
          ...(paths.length ? { paths } : {}),
          status: str(item.status) ?? "completed",
        });
        return;
      }
      case "mcp_tool_call":
      case "web_search":
        emit({
          kind: "tool_call",
          name: item.type === "web_search" ? "web_search" : `${str(item.server) ?? "mcp"}.${str(item.tool) ?? "tool"}`,
          args: item.arguments ?? { query: item.query },
          status: str(item.status) ?? "completed",
        });
        return;
      case "error":
        if (str(item.message)) emit({ kind: "text", text: clip(`codex: ${str(item.message)!}`) });
        return;
      default:
        return;
    }
  }

  end(emit: EventSink): InvocationSummary {
    let calls = 0;
    const push = (call: ModelCallEvent | null) => {
      if (call) {
        emit(call);
        calls++;
      }
    };
    const rollout = this.codexHome && this.state.thread ? findRollout(this.codexHome, this.state.thread) : null;
    const totals = rollout ? rolloutTotals(this.readRollout(rollout)) : [];
    if (totals.length > 0) {
      for (const total of totals) {
        push(callFromDifference(this.state.usage, total, this.model));
        if (total.input >= this.state.usage.input) this.state.usage = total;
      }
      // A turn.completed beyond the last token_count (not expected) is still counted.
      if (this.turnUsage) push(callFromDifference(this.state.usage, this.turnUsage, this.model));
    } else if (this.turnUsage) {
      push(callFromDifference(this.state.usage, this.turnUsage, this.model));
    }
    if (this.turnUsage && this.turnUsage.input >= this.state.usage.input) this.state.usage = this.turnUsage;
    return {
      ...(this.error !== undefined ? { error: this.error } : {}),
      ...(this.state.thread ? { conversationId: this.state.thread } : {}),
      modelCalls: calls,
    };
  }

  private readRollout(file: string): string[] {
    const r = readNewLines(file, this.state.rolloutOffset);
    this.state.rolloutOffset = r.offset;
    return r.lines;
  }
}
