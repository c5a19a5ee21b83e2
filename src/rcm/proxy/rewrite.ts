import { elidedNote } from "../assembly.js";
import type { StateWrite } from "../../formats/rcm-state-write.js";
import type { RcmEngine } from "../engine.js";
import { applyEdits, planEdits, stepSummary, type HistoryView, type StepSummary } from "../history-edits.js";
import { conversationView, sameRolePairs, unpaired } from "./conversation.js";
import type { Json, WireFormat } from "./wire-format.js";

/** What the proxy did with one request body. */
export type Rewrite =
  | { action: "pass"; reason: string }
  | {
      action: "assembled";
      body: Json;
      /** False when the plan changed nothing (mode off, a request below the threshold): the original bytes go upstream. */
      changed: boolean;
      conversation: string;
      step: StepSummary;
      /** Groups left out (`id:task`), groups elided, in history order. */
      dropped: string[];
      elided: string[];
      kept: number;
      entries: { in: number; out: number };
      /** Who writes the task records (mode rcm), and the batches written for this request. */
      state?: "model" | "extractive";
      stateWrites: StateWrite[];
    };

/** Why the assembled list may not go upstream: a tool call without its result, or two entries of one role in a row that the host did not send. */
function broken(format: WireFormat, before: readonly unknown[], after: readonly unknown[]): string | null {
  const was = format.pairs(before);
  const wasUnpaired = unpaired(was.calls, was.results);
  const now = format.pairs(after);
  const lost = [...unpaired(now.calls, now.results)].filter((id) => !wasUnpaired.has(id));
  if (lost.length > 0) return `tool call and result would be separated (${lost.slice(0, 3).join(", ")})`;
  const rolesBefore = format.alternation(before);
  const rolesAfter = format.alternation(after);
  if (rolesBefore && rolesAfter && sameRolePairs(rolesAfter) > sameRolePairs(rolesBefore)) return "roles would no longer alternate";
  return null;
}

/**
 * Runs one request through RCM: its conversation as groups, the engine of that conversation
 * (`engineFor`, keyed by the first request's group id, or found by the groups it already knows), the core's plan and edits, and the checks of
 * the protocol's invariants. Throws (rejects) on a body it cannot read; the caller fails open.
 */
export async function rewriteRequest(
  format: WireFormat,
  body: Json,
  engineFor: (conversation: string, groups: readonly string[]) => RcmEngine,
): Promise<Rewrite> {
  if (!format.hasTools(body)) return { action: "pass", reason: "no tools: not an agent step" };
  const list = format.list(body);
  if (typeof list === "string") return { action: "pass", reason: list };
  const roles = format.roles(list);
  const view: HistoryView = conversationView(roles);
  const first = view.groups[0];
  if (!first) return { action: "pass", reason: "no user request in the conversation" };
  const engine = engineFor(
    first.id,
    view.groups.map((g) => g.id),
  );
  // The auxiliary model (when the engine has one) is asked about undecided requests and, with model-written state, for state items.
  const plan = await engine.prepareAsync(view.groups);
  const edits = planEdits(view, plan, (i) => roles[i]!.kind === "exchange");
  const out = applyEdits(
    list,
    edits,
    () => format.note(elidedNote),
    (entry, record) => format.withRecord(entry, record),
  );
  const problem = broken(format, list, out);
  if (problem) throw new Error(`assembly refused: ${problem}`);
  const taskOf = (id: string) => engine.memory.router.assignments[id]?.task ?? "?";
  const pick = (t: string) => view.groups.filter((_, i) => plan.treatments[i] === t).map((g) => `${g.id}:${taskOf(g.id)}`);
  return {
    action: "assembled",
    body: format.withList(body, out),
    changed: edits.remove.size > 0 || edits.notes.length > 0 || edits.record !== null,
    conversation: first.id,
    step: stepSummary(view.groups, plan, edits),
    dropped: pick("dropped"),
    elided: pick("elided"),
    kept: plan.treatments.filter((t) => t !== "dropped").length,
    entries: { in: list.length, out: out.length },
    ...(engine.options.mode === "rcm" ? { state: engine.stateWriter } : {}),
    stateWrites: engine.drainStateWrites(),
  };
}
