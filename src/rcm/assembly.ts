import { actionText, type Group, type RcmMode } from "./history.js";
import { settled, type Assignment } from "./router.js";
import { renderTaskState, type TaskState } from "./state-record.js";

/** What happens to one earlier group in what the model receives. */
export type Treatment = "verbatim" | "elided" | "dropped";

export interface AssemblyPlan {
  mode: RcmMode;
  /** The task of the current request (null: shared or unknown). */
  active: string | null;
  confidence: number;
  /** False when the full history is kept (mode off, a shared request, or confidence below the threshold). */
  filtered: boolean;
  /** One entry per group, in history order; the current group is always verbatim. */
  treatments: Treatment[];
  /** The active task's state record, placed just before the current request (mode rcm). */
  record: string | null;
}

export interface AssemblyInput {
  mode: RcmMode;
  threshold: number;
  /** The task's most recent groups before the current one that always stay verbatim. */
  keepRecent: number;
  groups: readonly Group[];
  assignments: Readonly<Record<string, Assignment>>;
  states: Readonly<Record<string, TaskState>>;
  /** Tasks related to the active one, whose history stays as well (verbatim). */
  related?: readonly string[];
}

/**
 * Chooses what the model sees for the current (last) group: the groups of its task (and of the other
 * tasks it spans, and of related tasks), groups that span its task, shared and uncertain groups, and
 * in mode rcm the task's state record. Other tasks' confident groups are left out. In mode rcm an older group of the task loses its assistant and tool exchanges only when the
 * record covers that group; user requests are never removed from the active task.
 */
export function planAssembly(input: AssemblyInput): AssemblyPlan {
  const { groups, assignments, mode, threshold } = input;
  const all = groups.map((): Treatment => "verbatim");
  const current = groups[groups.length - 1];
  const a = current ? assignments[current.id] : undefined;
  const full = (active: string | null, confidence: number): AssemblyPlan => ({
    mode,
    active,
    confidence,
    filtered: false,
    treatments: all,
    record: null,
  });
  if (mode === "off" || !current || !a) return full(a?.task ?? null, a?.confidence ?? 0);
  if (a.task === null || a.confidence < threshold) return full(a.task, a.confidence);
  const active = a.task;
  // The request's own tasks (it may span several) and related tasks keep their history.
  const kept = new Set([active, ...(a.also ?? []), ...(input.related ?? [])]);
  const state = input.states[active];
  const covering = coveringRefs(state);
  const treatments = [...all];
  let recent = 0;
  for (let i = groups.length - 2; i >= 0; i--) {
    const g = groups[i]!;
    const ga = assignments[g.id];
    if (!ga || ga.task === null || !settled(ga, threshold)) continue;
    if (ga.task !== active) {
      if (!kept.has(ga.task) && !(ga.also ?? []).some((t) => kept.has(t))) treatments[i] = "dropped";
      continue;
    }
    recent++;
    if (mode === "rcm" && recent > input.keepRecent && coveredBy(g, covering) && worthEliding(g)) treatments[i] = "elided";
  }
  // What the model reads verbatim: requests that stay, and the exchanges of groups that stay whole.
  const visible = new Set<string>();
  groups.forEach((g, i) => {
    if (treatments[i] === "dropped") return;
    visible.add(g.userMessageId);
    if (treatments[i] === "verbatim") for (const [k, x] of g.actions.entries()) visible.add(x.messageId ?? `${g.id}#${k}`);
  });
  const record = mode === "rcm" && state && state.requests > 0 ? renderTaskState(state, visible) : null;
  return { mode, active, confidence: a.confidence, filtered: true, treatments, record };
}

/**
 * The messages the record's items cite (their sources and references; a result that merely supports a
 * claim of another exchange is not cited). Files and symbols are left out: a bare path says nothing of
 * what the exchange did.
 */
function coveringRefs(state: TaskState | undefined): Set<string> {
  const out = new Set<string>();
  if (!state) return out;
  for (const i of [
    ...(state.goal ? [state.goal] : []),
    ...state.constraints,
    ...state.completed,
    ...state.pending,
    ...state.uncertainties,
  ]) {
    for (const r of i.refs ?? [i.source]) out.add(r);
  }
  return out;
}

/**
 * An exchange is elided only when an injected record covers it: an item of the record cites one of its
 * messages. An item citing an elided message is out of view, so the record shows it (renderTaskState).
 */
function coveredBy(g: Group, refs: ReadonlySet<string>): boolean {
  return g.actions.some((a, k) => refs.has(a.messageId ?? `${g.id}#${k}`));
}

/** Exchanges are replaced by the note only when that saves text (a few tool calls with short output do not). */
function worthEliding(g: Group): boolean {
  let chars = 0;
  for (const a of g.actions) chars += actionText(a).length;
  return chars > 4 * elidedNote.length;
}

/** The text that stands for an elided group's exchanges. */
export const elidedNote = "[Earlier work on this request is summarized in the task state record.]";

export interface RenderedMessage {
  role: "user" | "assistant" | "tool";
  text: string;
}

/** The assembled history as plain messages (for offline evaluation and token counts). */
export function renderAssembly(groups: readonly Group[], plan: AssemblyPlan | null): RenderedMessage[] {
  const out: RenderedMessage[] = [];
  groups.forEach((g, i) => {
    const t = plan?.treatments[i] ?? "verbatim";
    if (t === "dropped") return;
    const isCurrent = i === groups.length - 1;
    const record = isCurrent && plan?.record ? `${plan.record}\n\n` : "";
    out.push({ role: "user", text: record + g.userText });
    if (t === "elided") {
      out.push({ role: "assistant", text: elidedNote });
      return;
    }
    for (const a of g.actions) out.push({ role: a.kind === "tool" ? "tool" : "assistant", text: actionText(a) });
  });
  return out;
}

/** The invariant: every request of the task is present verbatim in what the model receives. */
export function missingRequests(rendered: readonly RenderedMessage[], requests: readonly string[]): string[] {
  const userTexts = rendered.filter((m) => m.role === "user").map((m) => m.text);
  return requests.filter((r) => !userTexts.some((t) => t.includes(r)));
}
