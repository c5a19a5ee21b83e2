import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { ModelCallEvent } from "../formats/trajectory.js";
import type { InvocationParser, InvocationSummary } from "./cli-conversation.js";
import { readNewLines } from "./codex-events.js";
import { clip, jsonLine, num, obj, pathsOf, plainLine, str, type Json } from "./event-helpers.js";
import type { EventSink } from "./types.js";

/** State of a Gemini CLI session that outlives one invocation. */
export interface GeminiSessionState {
  session: string | null;
  /** Bytes of each chat file already read. */
  offsets: Map<string, number>;
  /** Ids of the model messages already counted. */
  counted: Set<string>;
}

export function newGeminiState(): GeminiSessionState {
  return { session: null, offsets: new Map(), counted: new Set() };
}

/** The chat files of a session: GEMINI_HOME/tmp/<project>/chats/session-<time>-<first 8 of the id>.jsonl. */
export function chatFiles(geminiDir: string, session: string): string[] {
  const tmp = join(geminiDir, "tmp");
  if (!existsSync(tmp)) return [];
  const suffix = `-${session.slice(0, 8)}.jsonl`;
  return readdirSync(tmp).flatMap((project) => {
    const chats = join(tmp, project, "chats");
    return existsSync(chats)
      ? readdirSync(chats)
          .filter((f) => f.startsWith("session-") && f.endsWith(suffix))
          .map((f) => join(chats, f))
      : [];
  });
}

/** A chat file's model message as a model call: its `input` counts the cached part, `output` excludes thoughts. */
export function callFromTokens(tokens: Json, model: string | undefined): ModelCallEvent {
  const cached = num(tokens.cached);
  return {
    kind: "model_call",
    ...(model ? { model } : {}),
    input_tokens: Math.max(0, num(tokens.input) - cached),
    cached_input_tokens: cached,
    output_tokens: num(tokens.output),
    reasoning_tokens: num(tokens.thoughts),
  };
}

/**
 * Reads `gemini -p … -o stream-json`. Text deltas become one text event per answer; tool_use and
 * tool_result become tool_call events. Usage: one model_call per model message of the session's
 * chat file (its `tokens`), new ones only; what `result.stats` counts beyond them (calls the chat
 * file does not record) becomes one more model_call; without a chat file, the stats alone.
 */
export class GeminiParser implements InvocationParser {
  private text = "";
  private readonly tools = new Map<string, { name: string; args: Json }>();
  private stats: Json | null = null;
  private error: string | undefined;

  constructor(
    private readonly state: GeminiSessionState,
    private readonly geminiDir: string | null,
  ) {}

  line(line: string, emit: EventSink): void {
    const e = jsonLine(line);
    if (!e) return plainLine(line).forEach(emit);
    if (e.type === "init" && str(e.session_id)) this.state.session = str(e.session_id)!;
    else if (e.type === "message" && e.role === "assistant") this.text += str(e.content) ?? "";
    else if (e.type === "tool_use") {
      this.flushText(emit);
      this.tools.set(str(e.tool_id) ?? "", { name: str(e.tool_name) ?? "tool", args: obj(e.parameters) });
    } else if (e.type === "tool_result") this.toolResult(e, emit);
    else if (e.type === "error") {
      const message = str(e.message) ?? "error";
      if (e.severity === "warning") emit({ kind: "text", text: clip(`gemini: ${message}`) });
      else this.error = clip(message, 1000);
    } else if (e.type === "result") {
      this.stats = obj(e.stats);
      if (e.status !== "success") this.error = clip(str(obj(e.error).message) ?? `gemini result: ${String(e.status)}`, 1000);
    }
  }

  private flushText(emit: EventSink): void {
    if (this.text.trim()) emit({ kind: "text", text: this.text });
    this.text = "";
  }

  private toolResult(e: Json, emit: EventSink): void {
    const id = str(e.tool_id) ?? "";
    const tool = this.tools.get(id) ?? { name: "tool", args: {} };
    this.tools.delete(id);
    const paths = pathsOf(tool.args);
    const output = str(e.output) ?? str(obj(e.error).message) ?? "";
    emit({
      kind: "tool_call",
      name: tool.name,
      args: tool.args,
      ...(paths.length ? { paths } : {}),
      status: str(e.status) ?? "completed",
      ...(output ? { output: clip(output) } : {}),
    });
  }

  end(emit: EventSink): InvocationSummary {
    this.flushText(emit);
    const calls = this.chatCalls();
    const residual = this.residual(calls);
    if (residual) calls.push(residual);
    calls.forEach(emit);
    return {
      ...(this.error !== undefined ? { error: this.error } : {}),
      ...(this.state.session ? { conversationId: this.state.session } : {}),
      modelCalls: calls.length,
    };
  }

  /** New model messages of the session's chat files (a message is written more than once: the last wins). */
  private chatCalls(): ModelCallEvent[] {
    if (!this.geminiDir || !this.state.session) return [];
    const found = new Map<string, ModelCallEvent>();
    for (const file of chatFiles(this.geminiDir, this.state.session)) {
      const r = readNewLines(file, this.state.offsets.get(file) ?? 0);
      this.state.offsets.set(file, r.offset);
      for (const line of r.lines) {
        const m = jsonLine(line);
        if (m?.type !== "gemini" || !str(m.id) || m.tokens === undefined || this.state.counted.has(str(m.id)!)) continue;
        found.set(str(m.id)!, callFromTokens(obj(m.tokens), str(m.model)));
      }
    }
    for (const id of found.keys()) this.state.counted.add(id);
    return [...found.values()];
  }

  private residual(calls: ModelCallEvent[]): ModelCallEvent | null {
    if (!this.stats) return null;
    const seenInput = calls.reduce((n, c) => n + c.input_tokens + (c.cached_input_tokens ?? 0), 0);
    const seenCached = calls.reduce((n, c) => n + (c.cached_input_tokens ?? 0), 0);
    const seenOutput = calls.reduce((n, c) => n + c.output_tokens, 0);
    const input = num(this.stats.input_tokens) - seenInput;
    const cached = Math.max(0, num(this.stats.cached) - seenCached);
    const output = num(this.stats.output_tokens) - seenOutput;
    if (input <= 0 && output <= 0) return null;
    return {
      kind: "model_call",
      model: calls.length > 0 ? "unattributed" : "gemini",
      input_tokens: Math.max(0, input - cached),
      cached_input_tokens: cached,
      output_tokens: Math.max(0, output),
    };
  }
}
