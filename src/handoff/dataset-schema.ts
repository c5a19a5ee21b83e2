import { z } from "zod";
import { DEFAULT_RUBRIC, FIELDS, isSingleValue, type Field } from "./fields.js";
import { strict } from "./strict-object.js";

/** Ids name cases and candidates in prompts, answers and file names: keep them plain. */
export const idPattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const idMessage = "ids are letters, digits, . _ - (starting with a letter or digit)";

/** A string that must be present; `missing` names what is absent, `wrong` says what it should be. */
function text(missing: string, wrong: string) {
  return z.string({ error: (iss) => (iss.input === undefined ? missing : wrong) });
}

const candidateSchema = strict(
  {
    id: text("missing id", "an id is a string").regex(idPattern, idMessage),
    text: text("missing text", "a candidate's text is a string").trim().min(1, "a candidate needs text"),
  },
  "candidate",
);

const candidateListSchema = z
  .array(candidateSchema, {
    error: (iss) => (iss.input === undefined ? "missing candidates for this field" : "candidates are a list of {id, text}"),
  })
  .min(1, "a field needs at least one candidate")
  .superRefine((list, ctx) => {
    const first = new Map<string, number>();
    list.forEach((c, i) => {
      const seen = first.get(c.id);
      if (seen === undefined) first.set(c.id, i);
      else ctx.addIssue({ code: "custom", path: [i, "id"], message: `duplicate candidate id "${c.id}" (also [${seen}])` });
    });
  });

function singleAnswer(field: Field) {
  return z
    .string({
      error: (iss) =>
        iss.input === undefined
          ? "missing answer"
          : Array.isArray(iss.input)
            ? `${field} takes one candidate id, not a list`
            : `${field} takes one candidate id (a string)`,
    })
    .min(1, `empty answer: ${field} takes one candidate id`);
}

function multiAnswer(field: Field) {
  return z.array(z.string({ error: "an id is a string" }), {
    error: (iss) => (iss.input === undefined ? "missing answer" : `${field} takes a list of candidate ids (possibly empty)`),
  });
}

const conditionText = text("missing condition", "a condition is the context text the model sees").trim().min(1, "empty condition text");

export const conditionsSchema = strict({ transcript: conditionText, memory: conditionText, handoff: conditionText }, "conditions");

export const candidatesSchema = strict(
  {
    objective: candidateListSchema,
    current_state: candidateListSchema,
    decisions: candidateListSchema,
    evidence: candidateListSchema,
    constraints: candidateListSchema,
    next_action: candidateListSchema,
    owner: candidateListSchema,
    open_questions: candidateListSchema,
  },
  "candidates",
);

export const answerKeySchema = strict(
  {
    objective: singleAnswer("objective"),
    current_state: multiAnswer("current_state"),
    decisions: multiAnswer("decisions"),
    evidence: multiAnswer("evidence"),
    constraints: multiAnswer("constraints"),
    next_action: singleAnswer("next_action"),
    owner: singleAnswer("owner"),
    open_questions: multiAnswer("open_questions"),
  },
  "answer",
);

type Issue = { path: PropertyKey[]; message: string };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Answer ids must be candidates of their field and appear once. Written over unknown input so it
 * runs even when another part of the case is malformed: every problem is reported in one pass.
 */
export function answerKeyIssues(caseValue: unknown): Issue[] {
  if (!isRecord(caseValue) || !isRecord(caseValue.answer) || !isRecord(caseValue.candidates)) return [];
  const { answer, candidates } = caseValue;
  const issues: Issue[] = [];
  for (const field of FIELDS) {
    const list = candidates[field];
    if (!Array.isArray(list)) continue;
    const ids = new Set(list.flatMap((c) => (isRecord(c) && typeof c.id === "string" ? [c.id] : [])));
    const given = answer[field];
    if (isSingleValue(field)) {
      if (typeof given === "string" && given !== "" && !ids.has(given))
        issues.push({ path: ["answer", field], message: `"${given}" is not a candidate id of ${field}` });
      continue;
    }
    if (!Array.isArray(given)) continue;
    const seen = new Set<string>();
    given.forEach((id, i) => {
      if (typeof id !== "string") return;
      if (seen.has(id)) issues.push({ path: ["answer", field, i], message: `duplicate id "${id}"` });
      else if (!ids.has(id)) issues.push({ path: ["answer", field, i], message: `"${id}" is not a candidate id of ${field}` });
      seen.add(id);
    });
  }
  return issues;
}

export const caseSchema = strict(
  {
    id: text("missing id", "a case id is a string").regex(idPattern, idMessage),
    title: text("missing title", "a title is a string").trim().min(1, "a case needs a title"),
    /** For dataset authors and reviewers (why each distractor is wrong); never shown to the model. */
    notes: z.string().optional(),
    conditions: conditionsSchema,
    candidates: candidatesSchema,
    answer: answerKeySchema,
  },
  "case",
).superRefine(
  (value, ctx) => {
    for (const issue of answerKeyIssues(value)) ctx.addIssue({ code: "custom", ...issue });
  },
  { when: () => true },
);

const points = z
  .number({ error: (iss) => (iss.input === undefined ? "missing points (0 is allowed)" : "points are a number") })
  .nonnegative("points cannot be negative");

export const rubricSchema = strict(
  {
    objective: points,
    current_state: points,
    decisions: points,
    evidence: points,
    constraints: points,
    next_action: points,
    owner: points,
    open_questions: points,
  },
  "rubric",
).superRefine((rubric, ctx) => {
  const total = FIELDS.reduce((sum, f) => sum + rubric[f], 0);
  // Points are usually integers; the tolerance only forgives binary fractions like 12.5 + 7.5.
  if (Math.abs(total - 100) > 1e-9) ctx.addIssue({ code: "custom", message: `points add up to ${total}, not 100` });
});

export const handoffDatasetSchema = strict(
  {
    version: text("missing version", "a version is a string").min(1, "empty version"),
    name: z.string().optional(),
    description: z.string().optional(),
    rubric: rubricSchema.default(() => ({ ...DEFAULT_RUBRIC })),
    cases: z
      .array(caseSchema, { error: (iss) => (iss.input === undefined ? "missing cases" : "cases are a list") })
      .min(1, "a dataset needs at least one case")
      // Duplicate ids are found even when some case is malformed (`when`), hence the checks on unknown input.
      .superRefine(
        (cases, ctx) => {
          if (!Array.isArray(cases)) return;
          const first = new Map<string, number>();
          (cases as unknown[]).forEach((c, i) => {
            if (!isRecord(c) || typeof c.id !== "string") return;
            const seen = first.get(c.id);
            if (seen === undefined) first.set(c.id, i);
            else ctx.addIssue({ code: "custom", path: [i, "id"], message: `duplicate case id "${c.id}" (also cases[${seen}])` });
          });
        },
        { when: () => true },
      ),
  },
  "dataset",
);

export type HandoffDataset = z.infer<typeof handoffDatasetSchema>;
export type HandoffCase = z.infer<typeof caseSchema>;
export type AnswerKey = z.infer<typeof answerKeySchema>;
