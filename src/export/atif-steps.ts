import { interruptionNumber } from "../report/page/interruption-number.js";
import type { AgentEvent, ModelCallEvent, TrajectoryLine } from "../formats/trajectory.js";
import type { AtifMetrics, AtifStep, AtifToolCall } from "../formats/atif.js";

type RequestStart = Extract<TrajectoryLine, { type: "request_start" }>;
type ToolCallEvent = Extract<AgentEvent, { kind: "tool_call" }>;

/**
 * The request a step belongs to, put in every step's `extra.switch_swe.request`: which request (its index in
 * the schedule), which checkout, and the role: the focus task, or the n-th interruption task of the session
 * (numbered by first appearance, so a reader of the switched session can tell the four apart).
 */
export interface RequestMark {
  index: number;
  task: string;
  role: "focus" | "interruption";
  interruption?: number;
  workspace: string;
  kind: "stage" | "finalization";
  stage?: number;
  focus_return: boolean;
  continuation: boolean;
}

/** An agent step being gathered: one model call and the text and tool calls the agent reported after it. */
interface OpenAgentStep {
  timestamp: string;
  request: RequestMark | null;
  call: ModelCallEvent | null;
  texts: string[];
  tools: Array<{ event: ToolCallEvent; timestamp: string }>;
}

/** One model call's tokens in ATIF's terms, by the project's token rule (docs/run-format.md). */
export function metricsOf(call: ModelCallEvent): AtifMetrics {
  const cached = call.cached_input_tokens ?? 0;
  const cacheWrite = call.cache_write_tokens ?? 0;
  // ATIF's prompt tokens are every input token (cache reads and writes included); its completion tokens
  // are every generated one, so reasoning reported apart from output is added to them.
  const reasoningApart = call.reasoning_in_output ? 0 : (call.reasoning_tokens ?? 0);
  const extra: Record<string, unknown> = { input_tokens: call.input_tokens, output_tokens: call.output_tokens };
  if (call.cache_write_tokens !== undefined) extra.cache_write_tokens = cacheWrite;
  if (call.reasoning_tokens !== undefined) extra.reasoning_tokens = call.reasoning_tokens;
  if (call.reasoning_in_output !== undefined) extra.reasoning_in_output = call.reasoning_in_output;
  return {
    prompt_tokens: call.input_tokens + cached + cacheWrite,
    completion_tokens: call.output_tokens + reasoningApart,
    cached_tokens: cached,
    ...(call.cost_usd !== undefined ? { cost_usd: call.cost_usd } : {}),
    extra,
  };
}

/** ATIF wants an object of arguments; anything else the agent reported is kept under `value`. */
function argumentsOf(args: unknown): Record<string, unknown> {
  if (args === undefined) return {};
  if (typeof args === "object" && args !== null && !Array.isArray(args)) return args as Record<string, unknown>;
  return { value: args };
}

function describeChanges(changed: Partial<Record<string, Array<{ path: string; before: string | null; after: string | null }>>>): string {
  const parts = Object.entries(changed).map(([ws, files]) => {
    const list = (files ?? []).map((f) => `${f.path}${f.before === null ? " (added)" : f.after === null ? " (deleted)" : ""}`);
    return `${ws}: ${list.join(", ")}`;
  });
  return parts.length ? `files changed: ${parts.join("; ")}` : "no file changed";
}

/**
 * Turns the lines of one attempt into ATIF steps, in the order they happened:
 * - `user`: each request as the agent received it (a continuation too), the request boundary;
 * - `agent`: each model call the agent reported, with its metrics and the text and tool calls reported
 *   after it up to the next call (tool outputs as observations); text or tool calls before a request's
 *   first call form an agent step without metrics; an auxiliary (context-manager) call is a step of its own;
 * - `system`: what the harness did: the session start, the workspaces' files after each request, how each
 *   request ended, the session end.
 */
export class StepBuilder {
  readonly steps: AtifStep[] = [];
  private open: OpenAgentStep | null = null;
  private readonly marks = new Map<number, RequestMark>();
  /** Requests delivered so far: interruptions are numbered by first appearance, as the page numbers them. */
  private readonly delivered: Array<{ task: string; role: string }> = [];
  /** Every delivery in order (continuations included), for the document's `extra`. */
  readonly requests: RequestMark[] = [];

  add(line: TrajectoryLine): void {
    switch (line.type) {
      case "session_start":
        this.close();
        return this.push({
          timestamp: line.time,
          source: "system",
          message: `switch-swe session ${line.session} (${line.condition} condition, attempt ${line.attempt}), agent ${line.agent}`,
          extra: {
            switch_swe: {
              line: "session_start",
              session: line.session,
              pair: line.pair,
              condition: line.condition,
              attempt: line.attempt,
              ...(line.conversation ? { conversation: line.conversation } : {}),
            },
          },
        });
      case "request_start":
        return this.requestStart(line);
      case "agent_event":
        return this.event(line.time, line.index, line.event);
      case "request_end": {
        this.close();
        const detail = line.detail ? `: ${line.detail}` : "";
        return this.push({
          timestamp: line.time,
          source: "system",
          message: `request ${line.index} ended: ${line.outcome} after ${(line.duration_ms / 1000).toFixed(1)} s${detail}`,
          extra: {
            switch_swe: {
              line: "request_end",
              request: this.mark(line.index),
              outcome: line.outcome,
              duration_ms: line.duration_ms,
              ...(line.detail ? { detail: line.detail } : {}),
            },
          },
        });
      }
      case "workspace_state": {
        this.close();
        const request = line.index === undefined ? null : this.mark(line.index);
        return this.push({
          timestamp: line.time,
          source: "system",
          message: request
            ? `after request ${line.index}, ${describeChanges(line.changed)}`
            : `workspaces ${Object.keys(line.trees).join(", ")} checked out`,
          extra: { switch_swe: { line: "workspace_state", ...(request ? { request } : {}), trees: line.trees, changed: line.changed } },
        });
      }
      case "session_end":
        this.close();
        return this.push({
          timestamp: line.time,
          source: "system",
          message: `session ${line.status}${line.finalized ? ", finalized" : ", not finalized"}${line.reason ? `: ${line.reason}` : ""}`,
          extra: {
            switch_swe: {
              line: "session_end",
              status: line.status,
              finalized: line.finalized,
              ...(line.reason ? { reason: line.reason } : {}),
            },
          },
        });
    }
  }

  /** Ends the agent step being gathered, if any. */
  close(): void {
    const o = this.open;
    if (!o) return;
    this.open = null;
    const stepId = this.steps.length + 1;
    const toolCalls: AtifToolCall[] = o.tools.map(({ event }, k) => {
      const extra: Record<string, unknown> = {};
      if (event.paths) extra.paths = event.paths;
      if (event.status !== undefined) extra.status = event.status;
      return {
        tool_call_id: `call-${stepId}-${k + 1}`,
        function_name: event.name,
        arguments: argumentsOf(event.args),
        ...(Object.keys(extra).length ? { extra } : {}),
      };
    });
    const results = o.tools.map(({ event, timestamp }, k) => ({
      source_call_id: `call-${stepId}-${k + 1}`,
      ...(event.output !== undefined ? { content: event.output } : {}),
      extra: { timestamp, ...(event.status !== undefined ? { status: event.status } : {}) },
    }));
    this.push({
      timestamp: o.timestamp,
      source: "agent",
      ...(o.call?.model ? { model_name: o.call.model } : {}),
      message: o.texts.join("\n\n"),
      ...(toolCalls.length ? { tool_calls: toolCalls, observation: { results } } : {}),
      ...(o.call ? { metrics: metricsOf(o.call), llm_call_count: 1 } : {}),
      extra: { switch_swe: { request: o.request } },
    });
  }

  private requestStart(line: RequestStart): void {
    this.close();
    this.delivered.push({ task: line.task, role: line.role });
    const interruption = interruptionNumber(this.delivered, line.task) ?? undefined;
    const mark: RequestMark = {
      index: line.index,
      task: line.task,
      role: line.role,
      ...(interruption !== undefined ? { interruption } : {}),
      workspace: line.workspace,
      kind: line.kind,
      ...(line.stage !== undefined ? { stage: line.stage } : {}),
      focus_return: line.focus_return,
      continuation: line.continuation === true,
    };
    this.marks.set(line.index, mark);
    this.requests.push(mark);
    this.push({
      timestamp: line.time,
      source: "user",
      message: line.message,
      extra: { switch_swe: { boundary: "request_start", request: mark, workspace_path: line.workspace_path } },
    });
  }

  private event(time: string, index: number, e: AgentEvent): void {
    const request = this.mark(index);
    switch (e.kind) {
      case "model_call":
        this.close();
        if (e.auxiliary) {
          // A context manager's call, not a turn of the agent's loop: a step of its own.
          this.push({
            timestamp: time,
            source: "agent",
            ...(e.model ? { model_name: e.model } : {}),
            message: "",
            metrics: metricsOf(e),
            llm_call_count: 1,
            extra: { switch_swe: { request, auxiliary: true } },
          });
          return;
        }
        this.open = { timestamp: time, request, call: e, texts: [], tools: [] };
        return;
      case "text":
        this.ensureOpen(time, request).texts.push(e.text);
        return;
      case "tool_call":
        this.ensureOpen(time, request).tools.push({ event: e, timestamp: time });
        return;
      case "error":
        this.close();
        this.push({ timestamp: time, source: "agent", message: e.message, extra: { switch_swe: { request, error: true } } });
        return;
      case "context":
        // What the RCM proxy did with a model request: the harness's record, not a step of the agent.
        return;
    }
  }

  private ensureOpen(time: string, request: RequestMark | null): OpenAgentStep {
    if (this.open && this.open.request?.index === request?.index) return this.open;
    this.close();
    this.open = { timestamp: time, request, call: null, texts: [], tools: [] };
    return this.open;
  }

  private mark(index: number): RequestMark | null {
    return this.marks.get(index) ?? null;
  }

  private push(step: Omit<AtifStep, "step_id">): void {
    this.steps.push({ step_id: this.steps.length + 1, ...step });
  }
}
