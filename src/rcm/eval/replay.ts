import type { TrajectoryLine } from "../../formats/trajectory.js";
import type { Action, Group } from "../history.js";

/** One request of a recorded session, with the controller's ground truth. */
export interface ReplayStep {
  group: Group;
  /** Ground-truth task (the agent never saw it). */
  task: string;
  role: "focus" | "interruption";
  /** The task's stage this request delivers (null: finalization). */
  stage: number | null;
  focusReturn: boolean;
  continuation: boolean;
  /** The agent's actions for this request, added to the group once the step is measured. */
  actions: Action[];
}

export interface ReplaySession {
  session: string;
  /** The session pair (the focus task's uninterrupted and switched sessions share it). */
  pair: string;
  condition: "base" | "switch";
  steps: ReplayStep[];
}

function toolStatus(status: string | undefined): Action["status"] {
  if (status === undefined) return undefined;
  if (/^(ok|completed|success|succeeded|done)$/i.test(status)) return "ok";
  if (/^(error|failed|failure)$/i.test(status)) return "error";
  return undefined;
}

/** Turns a trajectory into replay steps: each request (continuations included) is one group. */
export function replaySession(lines: readonly TrajectoryLine[]): ReplaySession | null {
  const start = lines.find((l) => l.type === "session_start");
  if (!start || start.type !== "session_start") return null;
  const steps: ReplayStep[] = [];
  let current: ReplayStep | null = null;
  for (const l of lines) {
    if (l.type === "request_start") {
      const id = `r${l.index}${l.continuation ? `c${steps.length}` : ""}`;
      current = {
        group: { id, userMessageId: id, userText: l.message, actions: [] },
        task: l.task,
        role: l.role,
        stage: l.kind === "stage" ? (l.stage ?? null) : null,
        focusReturn: l.focus_return,
        continuation: l.continuation === true,
        actions: [],
      };
      steps.push(current);
    } else if (l.type === "agent_event" && current) {
      const e = l.event;
      const messageId = `${current.group.id}#${current.actions.length}`;
      if (e.kind === "text") current.actions.push({ kind: "assistant", text: e.text, messageId });
      else if (e.kind === "tool_call") {
        const status = toolStatus(e.status);
        current.actions.push({
          kind: "tool",
          tool: e.name,
          text: e.output ?? "",
          messageId,
          ...(e.args !== undefined ? { args: e.args } : {}),
          ...(e.paths ? { paths: e.paths } : {}),
          ...(status ? { status } : {}),
        });
      }
    }
  }
  return { session: start.session, pair: start.pair, condition: start.condition, steps };
}
