import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { trajectoryLineSchema, type FileChange, type RequestOutcome, type TrajectoryLine } from "../formats/trajectory.js";
import { addEvent, addUsage, emptyUsage, type UsageTally as Usage } from "../formats/usage.js";

/**
 * The summary of one trajectory that the report needs; bounded in size whatever the trajectory's length.
 * Usage, outcomes and requests describe the last attempt (the one that produced the artifact);
 * attempts and run infrastructure faults count every attempt.
 */
export interface TrajectorySummary {
  /** session_start lines in this file (the run keeps only the last attempt here; older ones move to attempts/N/). */
  attempts: number;
  /** The attempt number of the last session_start (0 when none). */
  last_attempt: number;
  /** From the last attempt's session_end; null when the attempt has none (cut off). */
  ended: { status: "finished" | "failed"; finalized: boolean; reason: string | null } | null;
  requests_delivered: number;
  timeouts: number;
  agent_errors: number;
  /** request_end outcomes infra_fault over all attempts. */
  infra_faults: number;
  /** request_end outcomes infra_fault in the last attempt. */
  infra_faults_last: number;
  continuations: number;
  usage: Usage;
  /** Usage per focus stage number (all requests of that stage, continuations included). */
  focus_stages: Map<number, Usage>;
  /** Focus stages delivered as a focus return (not the first focus request, not finalization). */
  resumed_stages: Set<number>;
  /**
   * The largest context the agent's model was sent while working on the focus task: the most input tokens
   * (input + cached input + cache writes) of one model call during a focus request, auxiliary calls left
   * out; null when no such call was recorded.
   */
  focus_context_peak: number | null;
  invalid_lines: number;
  first_invalid: string | null;
  /** Per request index of the last attempt: what was sent and how its last delivery ended (null: no request_end). */
  request_log: Map<number, RequestRecord>;
  /** The last attempt's workspace_state lines in order (empty for runs recorded before per-request evidence). */
  states: StateRecord[];
}

export interface RequestRecord {
  task: string;
  role: "focus" | "interruption";
  workspace: string;
  kind: "stage" | "finalization";
  stage: number | null;
  outcome: RequestOutcome | null;
}

export interface StateRecord {
  /** null: the initial state, before the first request. */
  index: number | null;
  trees: Record<string, string | null>;
  changed: Partial<Record<string, FileChange[]>>;
}

interface RequestInfo {
  focusStage: number | null;
  focus: boolean;
}

const isCount = (x: unknown): x is number => typeof x === "number" && x >= 0 && Number.isFinite(x);
const optCount = (x: unknown) => x === undefined || isCount(x);
const optBool = (x: unknown) => x === undefined || typeof x === "boolean";
const optString = (x: unknown) => x === undefined || typeof x === "string";

/**
 * The hot path: model and tool calls are nearly every line of a trajectory. A call whose fields have the
 * types of trajectory-schema.ts is taken as is (unknown extra fields tolerated); anything else goes
 * through the full schema, which reports what is wrong.
 */
export function fastAgentEvent(raw: unknown): TrajectoryLine | null {
  if (typeof raw !== "object" || raw === null) return null;
  const line = raw as Record<string, unknown>;
  if (line.type !== "agent_event" || typeof line.time !== "string" || !Number.isInteger(line.index) || (line.index as number) < 0)
    return null;
  const e = line.event as Record<string, unknown> | null | undefined;
  if (typeof e !== "object" || e === null) return null;
  if (e.kind === "model_call") {
    if (!isCount(e.input_tokens) || !isCount(e.output_tokens)) return null;
    if (!optCount(e.cached_input_tokens) || !optCount(e.cache_write_tokens) || !optCount(e.reasoning_tokens) || !optCount(e.cost_usd))
      return null;
    if (!optBool(e.reasoning_in_output) || !optBool(e.auxiliary) || !optString(e.model)) return null;
    return raw as TrajectoryLine;
  }
  if (e.kind === "tool_call") return typeof e.name === "string" ? (raw as TrajectoryLine) : null;
  return null;
}

/** Folds trajectory lines, one at a time, into a TrajectorySummary. Pure: no I/O. */
export class TrajectoryAccumulator {
  private attempts = 0;
  private lastAttempt = 0;
  private infraFaults = 0;
  private invalid = 0;
  private firstInvalid: string | null = null;
  private attempt = this.freshAttempt();

  private freshAttempt() {
    return {
      ended: null as TrajectorySummary["ended"],
      delivered: new Set<number>(),
      timeouts: 0,
      agentErrors: 0,
      infraFaults: 0,
      continuations: 0,
      usage: emptyUsage(),
      focusStages: new Map<number, Usage>(),
      resumed: new Set<number>(),
      requests: new Map<number, RequestInfo>(),
      log: new Map<number, RequestRecord>(),
      states: [] as StateRecord[],
      seenFocus: false,
      firstFocusStage: null as number | null,
      focusContextPeak: null as number | null,
    };
  }

  /** Adds one raw text line (blank lines are ignored; unparsable or off-schema lines are counted). */
  addText(text: string, lineNo: number): void {
    if (text.trim() === "") return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      this.markInvalid(`line ${lineNo}: not valid JSON`);
      return;
    }
    const fast = fastAgentEvent(raw);
    if (fast) {
      this.add(fast);
      return;
    }
    const parsed = trajectoryLineSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      this.markInvalid(`line ${lineNo}: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "does not match the schema"}`);
      return;
    }
    this.add(parsed.data);
  }

  private markInvalid(what: string): void {
    this.invalid++;
    this.firstInvalid ??= what;
  }

  add(line: TrajectoryLine): void {
    const a = this.attempt;
    switch (line.type) {
      case "session_start":
        this.attempts++;
        this.lastAttempt = line.attempt;
        this.attempt = this.freshAttempt();
        return;
      case "request_start": {
        a.delivered.add(line.index);
        if (line.continuation) a.continuations++;
        let focusStage: number | null = null;
        if (line.role === "focus" && line.kind === "stage" && line.stage !== undefined) {
          focusStage = line.stage;
          if (!a.seenFocus) {
            a.seenFocus = true;
            a.firstFocusStage = line.stage;
          }
          if (line.focus_return && line.stage !== a.firstFocusStage) a.resumed.add(line.stage);
        } else if (line.role === "focus") {
          a.seenFocus = true;
        }
        a.requests.set(line.index, { focusStage, focus: line.role === "focus" });
        a.log.set(line.index, {
          task: line.task,
          role: line.role,
          workspace: line.workspace,
          kind: line.kind,
          stage: line.stage ?? null,
          outcome: null,
        });
        return;
      }
      case "agent_event": {
        const e = line.event;
        if (e.kind !== "model_call" && e.kind !== "tool_call") return;
        const u = emptyUsage();
        addEvent(u, e);
        addUsage(a.usage, u);
        const request = a.requests.get(line.index);
        if (e.kind === "model_call" && request?.focus && e.auxiliary !== true) {
          const context = e.input_tokens + (e.cached_input_tokens ?? 0) + (e.cache_write_tokens ?? 0);
          a.focusContextPeak = Math.max(a.focusContextPeak ?? 0, context);
        }
        const stage = request?.focusStage ?? null;
        if (stage !== null) {
          let s = a.focusStages.get(stage);
          if (!s) a.focusStages.set(stage, (s = emptyUsage()));
          addUsage(s, u);
        }
        return;
      }
      case "request_end":
        {
          const r = a.log.get(line.index);
          if (r) r.outcome = line.outcome;
        }
        if (line.outcome === "timeout") a.timeouts++;
        else if (line.outcome === "agent_error") a.agentErrors++;
        else if (line.outcome === "infra_fault") {
          this.infraFaults++;
          a.infraFaults++;
        }
        return;
      case "session_end":
        a.ended = { status: line.status, finalized: line.finalized, reason: line.reason ?? null };
        return;
      case "workspace_state": {
        const trees: Record<string, string | null> = {};
        for (const [w, t] of Object.entries(line.trees)) trees[w] = t.tree;
        a.states.push({ index: line.index ?? null, trees, changed: line.changed });
        return;
      }
    }
  }

  finish(): TrajectorySummary {
    const a = this.attempt;
    return {
      attempts: this.attempts,
      last_attempt: this.lastAttempt,
      ended: a.ended,
      requests_delivered: a.delivered.size,
      timeouts: a.timeouts,
      agent_errors: a.agentErrors,
      infra_faults: this.infraFaults,
      infra_faults_last: a.infraFaults,
      continuations: a.continuations,
      usage: a.usage,
      focus_stages: a.focusStages,
      resumed_stages: a.resumed,
      focus_context_peak: a.focusContextPeak,
      invalid_lines: this.invalid,
      first_invalid: this.firstInvalid,
      request_log: a.log,
      states: a.states,
    };
  }
}

/** Streams a trajectory.jsonl line by line (never the whole file in memory). */
export async function readTrajectorySummary(file: string): Promise<TrajectorySummary> {
  const acc = new TrajectoryAccumulator();
  const rl = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const text of rl) acc.addText(text, ++lineNo);
  return acc.finish();
}
