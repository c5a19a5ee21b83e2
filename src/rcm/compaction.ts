import type { RouterState } from "./router.js";
import { renderTaskState, type TaskState } from "./state-record.js";

/** The instruction for the host's compactor: keep every task, suspended ones included. */
export const compactionGuidance = [
  "This conversation may interleave several separate tasks (different workspaces, files or goals).",
  "When you summarize it, keep one section per task, including tasks that are suspended and not the latest one.",
  "For each task preserve: its workspace and files; its goal; every constraint the user stated, verbatim where short;",
  "what was completed (say whether a tool result confirmed it or the assistant only said so); what is still pending;",
  "open questions and failures. Do not merge requirements of different tasks, and do not drop a task because it is idle.",
].join(" ");

/** Context strings for compaction: the guidance, then the task list (router) or every state record (rcm). */
export function compactionContext(mode: "router" | "rcm", router: RouterState, states: Readonly<Record<string, TaskState>>): string[] {
  const out = [compactionGuidance];
  if (router.tasks.length === 0) return out;
  if (mode === "router") {
    out.push(
      `Tasks seen in this conversation:\n${router.tasks.map((t) => `- ${t.id}${t.workspace ? ` (${t.workspace})` : ""}: ${t.label}`).join("\n")}`,
    );
    return out;
  }
  for (const t of router.tasks) {
    const s = states[t.id];
    const record = s && s.requests > 0 ? renderTaskState(s) : null;
    if (record) out.push(record);
  }
  return out;
}
