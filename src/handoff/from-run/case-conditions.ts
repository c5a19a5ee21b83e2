import { RcmEngine } from "../../rcm/engine.js";
import { actionText, type Group } from "../../rcm/history.js";
import { parseRcmOptions } from "../../rcm/options.js";
import type { ReplaySession } from "../../rcm/eval/replay.js";
import { renderTaskState, type StateItem, type TaskState } from "../../rcm/state-record.js";
import { clip, requestBody } from "../../rcm/state-updater.js";
import type { FocusReturnFacts } from "./case-facts.js";

/** The conversation before the return, as a reader would see it, then where it goes next. */
export function renderTranscript(s: ReplaySession, f: FocusReturnFacts): string {
  const out: string[] = [];
  for (const step of s.steps.slice(0, f.at)) {
    out.push(`[user]\n${step.group.userText.trim()}`);
    for (const a of step.actions) {
      if (a.kind === "assistant") out.push(`[assistant]\n${a.text.trim()}`);
      else out.push(`[tool: ${a.tool ?? "tool"}${a.status ? `, ${a.status}` : ""}]\n${clip(actionText(a), 600)}`);
    }
  }
  out.push(`[The conversation now returns to the work${f.workspace ? ` in workspace ${f.workspace}` : " of the first request"}.]`);
  return out.join("\n\n");
}

/**
 * RCM's state record of the focus task at the return, replayed offline (deterministic updater, as the
 * plugin keeps it without an auxiliary model), and the record itself.
 */
export function focusState(s: ReplaySession, f: FocusReturnFacts): TaskState | null {
  const engine = new RcmEngine(parseRcmOptions({ mode: "rcm" }));
  const groups: Group[] = [];
  for (const step of s.steps.slice(0, f.at + 1)) {
    const g: Group = { ...step.group, actions: [] };
    groups.push(g);
    engine.prepare(groups);
    if (groups.length <= f.at) g.actions.push(...step.actions);
  }
  // Fold what the bounded batches left (a long history arrives at once only after a restart).
  for (let i = 0; i < Math.ceil(f.at / 8) + 1; i++) engine.prepare(groups);
  const first = f.delivered[0];
  const task = first ? engine.memory.router.assignments[first.group.id]?.task : null;
  return task ? (engine.memory.states[task] ?? null) : null;
}

export function renderMemory(state: TaskState | null): string {
  return (state && renderTaskState(state)) ?? "(RCM kept no state record for this work.)";
}

const list = (title: string, items: readonly string[]) => (items.length === 0 ? [] : [title, ...items.map((i) => `- ${i}`), ""]);
const texts = (items: readonly StateItem[]) => items.map((i) => `${i.text} (${i.kind})`);

/**
 * A structured handoff of the same facts: the requests verbatim (a handoff keeps the requirements
 * whole), then what the record says was done, the files, what is pending and what is uncertain.
 */
export function renderHandoff(state: TaskState | null, f: FocusReturnFacts): string {
  const requests = f.delivered.map((st, i) => `Request ${i + 1}:\n${requestBody(st.group.userText)}`);
  return [
    `HANDOFF${f.workspace ? `: workspace ${f.workspace}` : ""}`,
    "",
    "Requests so far (verbatim)",
    ...requests.flatMap((r) => [r, ""]),
    ...list("Done", texts(state?.completed ?? [])),
    ...list(
      "Files",
      (state?.files ?? []).map((i) => i.text),
    ),
    ...list("Pending", texts(state?.pending ?? [])),
    ...list("Open uncertainties", texts(state?.uncertainties ?? [])),
  ]
    .join("\n")
    .trim();
}
