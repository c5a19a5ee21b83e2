import type { AgentEvent, RequestOutcome, TrajectoryLine } from "../formats/trajectory.js";
import type { WorkspaceSnapshot } from "./workspace-evidence.js";
import type { ScheduleStep, WorkspaceName } from "../formats/sessions.js";
import { nowIso, type ProgressSink } from "./progress-events.js";
import type { WorkspaceMode } from "./overlay-workspaces.js";

export interface RequestStart {
  index: number;
  step: ScheduleStep;
  role: "focus" | "interruption";
  workspacePath: string;
  focusReturn: boolean;
  continuation: boolean;
  message: string;
}

/**
 * The one place a session's events are recorded: each writes its trajectory line and its progress
 * event from the same fields, so the two can never disagree.
 */
export class SessionRecorder {
  constructor(
    private readonly writeLine: (line: TrajectoryLine) => void,
    private readonly progress: ProgressSink,
    readonly session: string,
    private readonly requests: number,
  ) {}

  sessionStart(s: { pair: string; condition: "base" | "switch"; attempt: number; agent: string; conversation: string }): void {
    const time = nowIso();
    this.writeLine({ type: "session_start", time, session: this.session, ...s });
    this.progress({ type: "session_start", time, session: this.session, attempt: s.attempt, requests: this.requests });
  }

  workspacesReady(attempt: number, durationMs: number, mode: WorkspaceMode): void {
    this.progress({ type: "workspaces_ready", time: nowIso(), session: this.session, attempt, duration_ms: durationMs, mode: mode.kind });
  }

  requestStart(r: RequestStart): void {
    const time = nowIso();
    const { index, step } = r;
    this.writeLine({
      type: "request_start",
      time,
      index,
      task: step.task,
      role: r.role,
      workspace: step.workspace,
      workspace_path: r.workspacePath,
      kind: step.kind,
      ...(step.kind === "stage" ? { stage: step.stage } : {}),
      focus_return: r.focusReturn,
      ...(r.continuation ? { continuation: true } : {}),
      message: r.message,
    });
    this.progress({
      type: "request_start",
      time,
      session: this.session,
      index,
      requests: this.requests,
      kind: step.kind,
      workspace: step.workspace as WorkspaceName,
      continuation: r.continuation,
    });
  }

  agentEvent(index: number, event: AgentEvent): void {
    this.writeLine({ type: "agent_event", time: nowIso(), index, event });
  }

  requestEnd(index: number, outcome: RequestOutcome, durationMs: number, detail: string | undefined): void {
    const time = nowIso();
    const extra = detail ? { detail } : {};
    this.writeLine({ type: "request_end", time, index, outcome, duration_ms: durationMs, ...extra });
    this.progress({ type: "request_end", time, session: this.session, index, outcome, duration_ms: durationMs, ...extra });
  }

  /** The per-request evidence: workspace trees and changed files (index absent = before the first request). */
  workspaceState(index: number | null, snap: WorkspaceSnapshot): void {
    this.writeLine({
      type: "workspace_state",
      time: nowIso(),
      ...(index === null ? {} : { index }),
      trees: snap.trees,
      changed: snap.changed,
    });
  }

  warning(message: string): void {
    this.progress({ type: "warning", time: nowIso(), session: this.session, message });
  }

  sessionEnd(status: "finished" | "failed", finalized: boolean, reason?: string): void {
    this.writeLine({ type: "session_end", time: nowIso(), status, finalized, ...(reason === undefined ? {} : { reason }) });
  }
}
