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
  /** Groups whose assistant and tool exchanges this record covers (in the order they were folded in). */
  covered: string[];
  /** Number of the task's requests folded in so far. */
  requests: number;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function emptyTaskState(task: string, workspace: string | null): TaskState {
  return { task, workspace, goal: null, constraints: [], completed: [], pending: [], files: [], symbols: [], uncertainties: [], covered: [], requests: 0 };
}

export const recordOpen = "<task-state";
export const recordClose = "</task-state>";

function origin(i: StateItem): string {
  return `${i.kind}, request ${i.request}`;
}

/**
 * The record as the model reads it. It is labelled as stored state, and it tells the model that the
 * current request wins over it; empty sections are left out. Requirements of requests that the model
 * sees verbatim anyway (`visible`: their message ids) are not repeated: the record then carries what
 * those requests do not show (progress, files, uncertainties) and everything of requests that are no
 * longer in the history (after the host compacted it).
 */
export function renderTaskState(s: TaskState, visible: ReadonlySet<string> = new Set()): string {
  const hidden = (i: StateItem) => i.kind === "requirement" && visible.has(i.source);
  // The workspace is named by the visible requests themselves; a record read without them names it.
  const workspace = s.workspace && visible.size === 0 ? ` workspace="${s.workspace}"` : "";
  const lines = [
    `${recordOpen} task="${s.task}"${workspace}>`,
    "Stored state of this task from earlier turns; the current request overrides it. Kinds: requirement (user), observation (tool result), claim (assistant, unverified).",
  ];
  if (s.goal) lines.push(`Goal: ${clip(s.goal.text, 100)} [${origin(s.goal)}]`);
  const section = (title: string, items: StateItem[]) => {
    if (items.length === 0) return;
    lines.push(`${title}:`);
    for (const i of items) lines.push(`- ${i.text} [${origin(i)}]`);
  };
  section("Constraints", s.constraints.filter((i) => !hidden(i)));
  section("Completed", s.completed);
  const pending = s.pending.map((i) => (hidden(i) ? { ...i, text: `request ${i.request} (no change seen yet)` } : i));
  section("Pending", pending);
  // Files already named in a completed item are not listed again.
  const inCompleted = new Set(s.completed.flatMap((i) => i.paths ?? []));
  const files = s.files.filter((f) => !hidden(f) && !inCompleted.has(f.text.replace(/ \(\w+\)$/, "")));
  if (files.length > 0) lines.push(`Files: ${files.map((f) => f.text).join(", ")}`);
  const symbols = s.symbols.filter((f) => !hidden(f));
  if (symbols.length > 0) lines.push(`Symbols: ${symbols.map((f) => f.text).join(", ")}`);
  section("Open uncertainties", s.uncertainties);
  lines.push(recordClose);
  return lines.join("\n");
}
