/**
 * The task state record: a compact memory of one task. Every item says where it came from (the
 * message id, and which request of the task) and what kind of evidence it is.
 */

/** requirement: the user asked for it; observation: a tool result showed it; claim: the assistant said it. */
export type ItemKind = "requirement" | "observation" | "claim";

export interface StateItem {
  text: string;
  kind: ItemKind;
  /** Id of the message the item comes from. */
  source: string;
  /** 1-based number of the task's request the item comes from. */
  request: number;
  /** For a claim that became an observation: the message whose tool result supports it. */
  supported_by?: string;
  /** Files the item is about (claims are promoted by a later successful tool call on one of them). */
  paths?: string[];
  /** A claim that tests pass (promoted by a later passing test run). */
  tests?: boolean;
  /** A model-written item: the messages it cites (checked before the item was used; `source` is the first). */
  refs?: string[];
}

export interface TaskState {
  task: string;
  workspace: string | null;
  goal: StateItem | null;
  constraints: StateItem[];
  completed: StateItem[];
  pending: StateItem[];
  files: StateItem[];
  symbols: StateItem[];
  uncertainties: StateItem[];
  /**
   * Each request's opening sentence (newest kept). Shown only for requests the history no longer holds
   * (a host's compaction removed them): the task's requests are never left out by RCM itself.
   */
  asked: StateItem[];
  /** Groups whose assistant and tool exchanges this record covers (in the order they were folded in). */
  covered: string[];
  /** Number of the task's requests folded in so far. */
  requests: number;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function emptyTaskState(task: string, workspace: string | null): TaskState {
  return {
    task,
    workspace,
    goal: null,
    constraints: [],
    completed: [],
    pending: [],
    files: [],
    symbols: [],
    uncertainties: [],
    asked: [],
    covered: [],
    requests: 0,
  };
}

export const recordOpen = "<task-state";
export const recordClose = "</task-state>";

function origin(i: StateItem): string {
  return `${i.kind}, request ${i.request}`;
}

/**
 * The record as the model reads it, or null when it would tell nothing new. It is labelled as stored
 * state, and it tells the model that the current request wins over it; empty sections are left out.
 * Items whose source the model sees verbatim anyway (`visible`: message ids of the requests and
 * exchanges that stay in the history) are not repeated: the record carries what the history no
 * longer shows (exchanges replaced by the record, everything a compaction removed), so it never costs
 * tokens for what the model already reads.
 */
export function renderTaskState(s: TaskState, visible: ReadonlySet<string> = new Set()): string | null {
  // An item citing several messages is news while any of them is out of view.
  const shown = (i: StateItem) => (i.refs ?? [i.source]).some((r) => !visible.has(r));
  // The workspace is named by the visible requests themselves; a record read without them names it.
  const workspace = s.workspace && visible.size === 0 ? ` workspace="${s.workspace}"` : "";
  const body: string[] = [];
  if (s.goal && shown(s.goal)) body.push(`Goal: ${clip(s.goal.text, 100)} [${origin(s.goal)}]`);
  // Requests a compaction removed, by their opening sentence (the goal stands for the first).
  const asked = s.asked.filter((i) => shown(i) && !(s.goal && shown(s.goal) && i.request === s.goal.request));
  if (asked.length > 0) {
    body.push("Requests no longer in the conversation:");
    for (const i of asked) body.push(`- request ${i.request}: ${i.text} [${origin(i)}]`);
  }
  const section = (title: string, items: StateItem[]) => {
    if (items.length === 0) return;
    body.push(`${title}:`);
    for (const i of items) body.push(`- ${i.text} [${origin(i)}]`);
  };
  section("Constraints", s.constraints.filter(shown));
  section("Completed", s.completed.filter(shown));
  section("Pending", s.pending.filter(shown));
  // Files already named in a completed item are not listed again.
  const inCompleted = new Set(s.completed.filter(shown).flatMap((i) => i.paths ?? []));
  const files = s.files.filter((f) => shown(f) && !inCompleted.has(f.text.replace(/ \(\w+\)$/, "")));
  if (files.length > 0) body.push(`Files: ${files.map((f) => f.text).join(", ")}`);
  const symbols = s.symbols.filter(shown);
  if (symbols.length > 0) body.push(`Symbols: ${symbols.map((f) => f.text).join(", ")}`);
  section("Open uncertainties", s.uncertainties.filter(shown));
  if (body.length === 0) return null;
  return [
    `${recordOpen} task="${s.task}"${workspace}>`,
    "Stored state of this task; the current request overrides it. [requirement: user; observation: tool result; claim: assistant, unverified]",
    ...body,
    recordClose,
  ].join("\n");
}
