/** The eight fields of recovered work state, in the order prompts, tables and templates use. */
export const FIELDS = [
  "objective",
  "current_state",
  "decisions",
  "evidence",
  "constraints",
  "next_action",
  "owner",
  "open_questions",
] as const;
export type Field = (typeof FIELDS)[number];

/** Fields answered by exactly one candidate id (exact match); the rest take a set of ids (set F1). */
export const SINGLE_VALUE_FIELDS: ReadonlySet<Field> = new Set<Field>(["objective", "next_action", "owner"]);

export function isSingleValue(field: Field): boolean {
  return SINGLE_VALUE_FIELDS.has(field);
}

/** The three forms in which the same interrupted work is given to the model. */
export const CONDITIONS = ["transcript", "memory", "handoff"] as const;
export type Condition = (typeof CONDITIONS)[number];

export type Rubric = Record<Field, number>;

export const DEFAULT_RUBRIC: Rubric = {
  objective: 10,
  current_state: 20,
  decisions: 15,
  evidence: 15,
  constraints: 10,
  next_action: 15,
  owner: 5,
  open_questions: 10,
};

/** What each field asks for; shown in prompts and docs so every reader gets the same definition. */
export const FIELD_QUESTIONS: Record<Field, string> = {
  objective: "the goal of the interrupted work",
  current_state: "every statement that is true of the work right now",
  decisions: "every decision that still stands, not the ones later reversed",
  evidence: "every observation that supports the current state",
  constraints: "every constraint that applies now, not the ones lifted or superseded",
  next_action: "the next step of this work",
  owner: "who takes the next step",
  open_questions: "every question that is still unresolved",
};
