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
 * current request wins over it; empty sections are left out.
 */
export function renderTaskState(s: TaskState): string {
  const lines = [
    `${recordOpen} task="${s.task}"${s.workspace ? ` workspace="${s.workspace}"` : ""}>`,
    "Stored state of this task from earlier turns (requirement = asked by the user, observation = shown by a tool result, claim = said by the assistant, unverified). The current request overrides it.",
  ];
  if (s.goal) lines.push(`Goal: ${s.goal.text} [${origin(s.goal)}]`);
  const section = (title: string, items: StateItem[]) => {
    if (items.length === 0) return;
    lines.push(`${title}:`);
    for (const i of items) lines.push(`- ${i.text} [${origin(i)}]`);
  };
  section("Constraints", s.constraints);
  section("Completed", s.completed);
  section("Pending", s.pending);
  if (s.files.length > 0) lines.push(`Files: ${s.files.map((f) => f.text).join(", ")}`);
  if (s.symbols.length > 0) lines.push(`Symbols: ${s.symbols.map((f) => f.text).join(", ")}`);
  section("Open uncertainties", s.uncertainties);
  lines.push(recordClose);
  return lines.join("\n");
}
