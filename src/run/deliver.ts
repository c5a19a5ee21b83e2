import { InfraFault } from "../core/infra-fault.js";
import type { AgentResult, Conversation } from "../agents/types.js";
import type { AgentEvent, RequestOutcome } from "../formats/trajectory.js";
import { addEvent, type UsageTally } from "../formats/usage.js";
import type { ScheduleStep, WorkspaceName } from "../formats/sessions.js";
import { continuationMessage, finalizationMessage, stageMessage, type SubmissionMode } from "./message-templates.js";
import type { SessionRecorder } from "./recorder.js";
import type { WorkspaceEvidence } from "./workspace-evidence.js";
import { timed } from "./phase-timing.js";

/** The run is being stopped (Ctrl-C, SIGTERM): the attempt ends without blaming anyone. */
export class RunInterrupted extends Error {}

/** Extra time an adapter gets past its request deadline before the controller gives up on it. */
const adapterGraceMs = 60_000;

export interface DeliverParams {
  conversation: Conversation;
  schedule: readonly ScheduleStep[];
  repo: string;
  focus: string;
  /** Absolute path of each workspace as the agent sees it. */
  paths: Readonly<Record<WorkspaceName, string>>;
  recorder: SessionRecorder;
  /** Records the five workspaces' trees after every delivery (absent: no evidence recorded). */
  evidence?: WorkspaceEvidence;
  /** Running usage totals, updated in place as events arrive. */
  usage: UsageTally;
  requestTimeoutMs: number;
  /** Timeout continuations allowed per session (in total). */
  maxContinuations: number;
  /** `agent`: the finalization request asks for the submission file (default `checkout`). */
  submission?: SubmissionMode;
  signal: AbortSignal;
}

export interface Delivered {
  requests: { scheduled: number; delivered: number; yielded: number; timeout: number; agent_error: number };
  timeouts: number;
  continuations: number;
  /** The finalization request ended with the agent yielding. */
  finalized: boolean;
}

interface LoopState extends Delivered {
  turn: number;
}

/**
 * Delivers every request of a schedule in order, one at a time, each followed by timeout continuations
 * while the session has some left. Throws RunInterrupted when the run stops and InfraFault when the
 * adapter reports one (the runner restarts the attempt).
 */
export async function deliverSchedule(p: DeliverParams): Promise<Delivered> {
  const st: LoopState = {
    requests: { scheduled: p.schedule.length, delivered: 0, yielded: 0, timeout: 0, agent_error: 0 },
    timeouts: 0,
    continuations: 0,
    finalized: false,
    turn: 0,
  };
  let previous: WorkspaceName | null = null;
  for (const [index, step] of p.schedule.entries()) {
    const outcome = await deliverRequest(p, st, index, step, previous);
    if (step.kind === "finalization") st.finalized = outcome === "yielded";
    previous = step.workspace;
  }
  const { turn: _turn, ...delivered } = st;
  return delivered;
}

/** One request of the schedule, with its continuations; returns how its last delivery ended. */
async function deliverRequest(
  p: DeliverParams,
  st: LoopState,
  index: number,
  step: ScheduleStep,
  previous: WorkspaceName | null,
): Promise<RequestOutcome> {
  const path = p.paths[step.workspace];
  const role = step.task === p.focus ? "focus" : "interruption";
  const focusReturn = step.kind === "stage" && role === "focus" && previous !== null && previous !== step.workspace;
  let message = step.kind === "stage" ? stageMessage(p.repo, path, step.text) : finalizationMessage(p.repo, path, p.submission);
  let continuation = false;
  for (;;) {
    if (p.signal.aborted) throw new RunInterrupted();
    p.recorder.requestStart({ index, step, role, workspacePath: path, focusReturn, continuation, message });
    const t0 = Date.now();
    let events = 0;
    const onEvent = (event: AgentEvent) => {
      events++;
      addEvent(p.usage, event);
      p.recorder.agentEvent(index, event);
    };
    const request = {
      index,
      message,
      workspace: step.workspace,
      workspacePath: path,
      continuation,
      turn: st.turn,
      timeoutMs: p.requestTimeoutMs,
      signal: p.signal,
    };
    const result = await timed("request", () => sendGuarded(p.conversation, request, onEvent, p.signal));
    st.turn++;
    const outcome = result.outcome;
    p.recorder.requestEnd(index, outcome, Date.now() - t0, result.detail);
    const evidence = p.evidence;
    if (evidence) p.recorder.workspaceState(index, await timed("evidence", () => evidence.snapshot()));
    if (p.signal.aborted) throw new RunInterrupted();
    if (outcome === "infra_fault") throw new InfraFault(`request ${index}: ${result.detail ?? "agent infrastructure fault"}`);
    if (!continuation) st.requests.delivered++;
    st.requests[outcome]++;
    if (outcome === "agent_error" && st.turn === 1 && events === 0) {
      p.recorder.warning(`agent failed on its first request without output: ${result.detail ?? "no detail"}`);
    }
    if (outcome !== "timeout") return outcome;
    st.timeouts++;
    if (st.continuations >= p.maxContinuations) return outcome;
    st.continuations++;
    continuation = true;
    message = continuationMessage(p.repo, path);
  }
}

/**
 * Sends one request; an adapter that does not return within its deadline plus a grace period (a bug in
 * the adapter, since every adapter must honour the deadline) fails the attempt instead of hanging the run.
 */
async function sendGuarded(
  conversation: Conversation,
  request: Parameters<Conversation["send"]>[0],
  onEvent: (e: AgentEvent) => void,
  signal: AbortSignal,
): Promise<AgentResult> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const guard = new Promise<never>((_, reject) => {
    const fail = (ms: number, why: string) => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => reject(new Error(why)), ms);
    };
    fail(
      request.timeoutMs + adapterGraceMs,
      `agent adapter did not return within ${Math.round((request.timeoutMs + adapterGraceMs) / 1000)} s of its request deadline`,
    );
    onAbort = () => fail(10_000, "agent adapter did not stop after the run was interrupted");
    signal.addEventListener("abort", onAbort);
  });
  try {
    return await Promise.race([conversation.send(request, onEvent), guard]);
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
