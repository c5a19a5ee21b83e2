import type { ModelCallEvent } from "../formats/trajectory.js";
import type { InvocationParser, InvocationSummary } from "./cli-conversation.js";
import type { EventSink } from "./types.js";
import { clip, jsonLine, num, obj, pathsOf, plainLine, str, type Json } from "./event-helpers.js";

interface Totals {
  input: number;
  cached: number;
  cacheWrite: number;
  output: number;
}

const tokensOf = (e: ModelCallEvent): Totals => ({
  input: e.input_tokens,
  cached: e.cached_input_tokens ?? 0,
  cacheWrite: e.cache_write_tokens ?? 0,
  output: e.output_tokens,
});

/**
 * Reads `claude -p --output-format stream-json --verbose --include-partial-messages`. One model_call
 * per API message, from its raw stream events (message_start: input, cache reads and writes;
 * message_delta: the final output count); tool_use blocks become tool_call events when their result
 * arrives. `result.usage` covers this invocation: anything it counts beyond the streamed messages is
 * recorded as one more model_call. `total_cost_usd` is cumulative over the resumed session: the
 * difference from the previous invocation (`costBefore`) goes on the turn's last model call.
 */
export class ClaudeCodeParser implements InvocationParser {
  private readonly steps = new Map<string, ModelCallEvent & { stop?: string }>();
  private readonly tools = new Map<string, { name: string; input: Json }>();
  private held: ModelCallEvent | null = null;
  private emitted: ModelCallEvent[] = [];
  private result: Json | null = null;
  /** Id of the message being streamed. */
  private current: string | undefined;
  private sessionId: string | undefined;
  private error: string | undefined;
  /**
   * @param costBefore the session's cumulative cost before this invocation
   * @param onCost told the session's cumulative cost after it, when the CLI reports one
   */
  constructor(
    private readonly costBefore: number,
    private readonly onCost: (after: number) => void = () => {},
  ) {}

  line(line: string, emit: EventSink): void {
    const e = jsonLine(line);
    if (!e) return plainLine(line).forEach(emit);
    this.sessionId ??= str(e.session_id);
    switch (e.type) {
      case "stream_event":
        return this.streamEvent(obj(e.event), str(e.api_message_id), emit);
      case "assistant":
        return this.assistant(obj(e.message), emit);
      case "user":
        return this.toolResults(obj(e.message), emit);
      case "result":
        this.result = e;
        if (e.is_error === true || (str(e.subtype) ?? "success") !== "success")
          this.error = clip(str(e.result) ?? str(e.subtype) ?? "claude reported an error", 1000);
        return;
      default:
        return;
    }
  }

  private streamEvent(ev: Json, apiId: string | undefined, emit: EventSink): void {
    if (ev.type === "message_start") {
      const m = obj(ev.message);
      const u = obj(m.usage);
      const id = str(m.id) ?? `step${this.steps.size}`;
      const step: ModelCallEvent = {
        kind: "model_call",
        input_tokens: num(u.input_tokens),
        output_tokens: num(u.output_tokens),
        cached_input_tokens: num(u.cache_read_input_tokens),
        cache_write_tokens: num(u.cache_creation_input_tokens),
      };
      if (str(m.model)) step.model = str(m.model)!;
      this.steps.set(id, step);
      this.current = id;
    } else if (ev.type === "message_delta") {
      const step = this.steps.get(apiId ?? this.current ?? "");
      if (!step) return;
      const u = obj(ev.usage);
      if (typeof u.output_tokens === "number") step.output_tokens = num(u.output_tokens);
      if (typeof u.input_tokens === "number") step.input_tokens = num(u.input_tokens);
      if (typeof u.cache_read_input_tokens === "number") step.cached_input_tokens = num(u.cache_read_input_tokens);
      if (typeof u.cache_creation_input_tokens === "number") step.cache_write_tokens = num(u.cache_creation_input_tokens);
      (step as { stop?: string }).stop = str(obj(ev.delta).stop_reason);
    } else if (ev.type === "message_stop") {
      const id = apiId ?? this.current ?? "";
      const step = this.steps.get(id);
      if (!step) return;
      this.steps.delete(id);
      const { stop, ...call } = step;
      this.flushHeld(emit);
      // A call that ends the turn is held: the invocation's cost goes on it when the result arrives.
      if (stop === "tool_use") this.emitCall(call, emit);
      else this.held = call;
    }
  }

  private emitCall(call: ModelCallEvent, emit: EventSink): void {
    this.emitted.push(call);
    emit(call);
  }

  private flushHeld(emit: EventSink): void {
    if (this.held) this.emitCall(this.held, emit);
    this.held = null;
  }

  private assistant(m: Json, emit: EventSink): void {
    for (const block of Array.isArray(m.content) ? (m.content as unknown[]).map(obj) : []) {
      if (block.type === "tool_use" && str(block.id))
        this.tools.set(str(block.id)!, { name: str(block.name) ?? "tool", input: obj(block.input) });
      else if (block.type === "text" && str(block.text)?.trim()) emit({ kind: "text", text: str(block.text)! });
    }
  }

  private toolResults(m: Json, emit: EventSink): void {
    for (const block of Array.isArray(m.content) ? (m.content as unknown[]).map(obj) : []) {
      if (block.type !== "tool_result") continue;
      const tool = this.tools.get(str(block.tool_use_id) ?? "");
      if (!tool) continue;
      const content =
        typeof block.content === "string"
          ? block.content
          : Array.isArray(block.content)
            ? (block.content as unknown[]).map((p) => str(obj(p).text) ?? "").join("")
            : "";
      const paths = pathsOf(tool.input);
      emit({
        kind: "tool_call",
        name: tool.name,
        args: tool.input,
        ...(paths.length ? { paths } : {}),
        status: block.is_error === true ? "error" : "completed",
        output: clip(content),
      });
    }
  }

  end(emit: EventSink): InvocationSummary {
    // Messages whose stream was cut (a killed process) still count what they reported.
    for (const { stop: _stop, ...call } of this.steps.values()) {
      this.flushHeld(emit);
      this.held = call;
    }
    this.steps.clear();
    const residual = this.residual();
    if (residual) {
      this.flushHeld(emit);
      this.held = residual;
    }
    const total = this.result?.total_cost_usd;
    if (typeof total === "number") {
      this.onCost(total);
      const delta = total - this.costBefore;
      if (this.held && delta > 0) this.held.cost_usd = Number(delta.toFixed(9));
    }
    this.flushHeld(emit);
    return {
      ...(this.error !== undefined ? { error: this.error } : {}),
      ...(this.sessionId ? { conversationId: this.sessionId } : {}),
      modelCalls: this.emitted.length,
    };
  }

  /** Tokens `result.usage` counts beyond the streamed messages (calls not streamed), as one model call. */
  private residual(): ModelCallEvent | null {
    if (!this.result) return null;
    const u = obj(this.result.usage);
    const seen = [...this.emitted, ...(this.held ? [this.held] : [])].map(tokensOf).reduce(
      (a, b) => ({
        input: a.input + b.input,
        cached: a.cached + b.cached,
        cacheWrite: a.cacheWrite + b.cacheWrite,
        output: a.output + b.output,
      }),
      { input: 0, cached: 0, cacheWrite: 0, output: 0 },
    );
    const r = {
      input: num(u.input_tokens) - seen.input,
      cached: num(u.cache_read_input_tokens) - seen.cached,
      cacheWrite: num(u.cache_creation_input_tokens) - seen.cacheWrite,
      output: num(u.output_tokens) - seen.output,
    };
    if (r.input <= 0 && r.cached <= 0 && r.cacheWrite <= 0 && r.output <= 0) return null;
    return {
      kind: "model_call",
      model: "unstreamed",
      input_tokens: Math.max(0, r.input),
      output_tokens: Math.max(0, r.output),
      cached_input_tokens: Math.max(0, r.cached),
      cache_write_tokens: Math.max(0, r.cacheWrite),
    };
  }
}
