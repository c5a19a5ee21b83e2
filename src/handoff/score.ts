import type { HandoffCase, HandoffDataset } from "./dataset-schema.js";
import { CONDITIONS, FIELDS, isSingleValue, type Condition, type Field, type Rubric } from "./fields.js";
import type { Submission } from "./submission-schema.js";

/** Something the scorer noticed; `path` is a field path in the submission file. */
export interface ScoreProblem {
  path: string;
  message: string;
}

export interface CaseConditionScore {
  /** 0..100: the sum of the field points. */
  score: number;
  /** Points earned per field, 0..rubric points. */
  fields: Record<Field, number>;
}

export interface ScoreResult {
  /** Mean over every case and condition, 0..100. */
  overall: number;
  /** Mean over cases, per condition, 0..100. */
  conditions: Record<Condition, number>;
  /** Mean points per field per condition (0..rubric points): the rows of the text table. */
  fieldMeans: Record<Condition, Record<Field, number>>;
  cases: Record<string, Record<Condition, CaseConditionScore>>;
  problems: ScoreProblem[];
}

/** Set F1 of distinct ids; an empty answer against an empty key is a perfect match. */
export function setF1(given: readonly string[], key: readonly string[]): number {
  const a = new Set(given);
  const k = new Set(key);
  if (a.size === 0 && k.size === 0) return 1;
  let hits = 0;
  for (const id of a) if (k.has(id)) hits++;
  return (2 * hits) / (a.size + k.size);
}

export interface FieldScore {
  /** 0..1 of the field's points. */
  fraction: number;
  problems: { suffix: string; message: string }[];
}

/**
 * Scores one field's answer against its key. Anything not scorable (missing, wrong type, an id that
 * is not a candidate) scores 0 and says why; duplicates in a set count once.
 */
export function scoreField(field: Field, candidateIds: ReadonlySet<string>, key: string | readonly string[], given: unknown): FieldScore {
  if (given === undefined || given === null) return { fraction: 0, problems: [{ suffix: "", message: "no answer" }] };
  if (isSingleValue(field)) {
    if (typeof given !== "string") {
      const what = Array.isArray(given) ? "not a list" : "a string";
      return { fraction: 0, problems: [{ suffix: "", message: `${field} takes one candidate id, ${what}` }] };
    }
    if (!candidateIds.has(given))
      return { fraction: 0, problems: [{ suffix: "", message: `"${given}" is not a candidate id of ${field}` }] };
    return { fraction: given === key ? 1 : 0, problems: [] };
  }
  if (!Array.isArray(given) || given.some((id) => typeof id !== "string")) {
    return { fraction: 0, problems: [{ suffix: "", message: `${field} takes a list of candidate ids` }] };
  }
  const ids = given as string[];
  const unknown = ids.flatMap((id, i) =>
    candidateIds.has(id) ? [] : [{ suffix: `[${i}]`, message: `"${id}" is not a candidate id of ${field}` }],
  );
  if (unknown.length > 0) return { fraction: 0, problems: unknown };
  return { fraction: setF1(ids, key as readonly string[]), problems: [] };
}

function zeroFields(): Record<Field, number> {
  return Object.fromEntries(FIELDS.map((f) => [f, 0])) as Record<Field, number>;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : sum(values) / values.length;
}

/** Scores one case under one condition; problems get paths rooted at `answers.CASE.CONDITION`. */
export function scoreCaseCondition(
  c: HandoffCase,
  condition: Condition,
  rubric: Rubric,
  submission: Pick<Submission, "answers" | "responses">,
  problems: ScoreProblem[],
): CaseConditionScore {
  const fields = zeroFields();
  const base = `answers.${c.id}.${condition}`;
  const response = submission.responses?.[c.id]?.[condition];
  if (response?.outcome === "invalid-json") {
    problems.push({
      path: `responses.${c.id}.${condition}`,
      message: `the response is not valid JSON (${response.detail ?? "no detail"}); every field scores 0`,
    });
    return { score: 0, fields };
  }
  for (const note of response?.problems ?? []) problems.push({ path: `responses.${c.id}.${condition}`, message: note });
  const given = submission.answers[c.id]?.[condition];
  // One line for a condition left wholly unanswered (as in a template), not eight.
  if (given === undefined || FIELDS.every((f) => given[f] === undefined || given[f] === null)) {
    problems.push({ path: base, message: "no answer" });
    return { score: 0, fields };
  }
  for (const field of FIELDS) {
    const ids = new Set(c.candidates[field].map((cand) => cand.id));
    const result = scoreField(field, ids, c.answer[field], given[field]);
    fields[field] = result.fraction * rubric[field];
    for (const p of result.problems) problems.push({ path: `${base}.${field}${p.suffix}`, message: p.message });
  }
  return { score: sum(FIELDS.map((f) => fields[f])), fields };
}

/** Scores a whole submission: per field, per case and condition, per condition, and overall. */
export function scoreSubmission(dataset: HandoffDataset, submission: Pick<Submission, "answers" | "responses">): ScoreResult {
  const problems: ScoreProblem[] = [];
  const cases: ScoreResult["cases"] = {};
  for (const c of dataset.cases) {
    if (submission.answers[c.id] === undefined && submission.responses?.[c.id] === undefined) {
      problems.push({ path: `answers.${c.id}`, message: "no answers for this case" });
      const empty = { score: 0, fields: zeroFields() };
      cases[c.id] = { transcript: empty, memory: empty, handoff: empty };
      continue;
    }
    const perCondition = {} as Record<Condition, CaseConditionScore>;
    for (const condition of CONDITIONS) perCondition[condition] = scoreCaseCondition(c, condition, dataset.rubric, submission, problems);
    cases[c.id] = perCondition;
  }
  const known = new Set(dataset.cases.map((c) => c.id));
  for (const id of Object.keys(submission.answers)) {
    if (!known.has(id)) problems.push({ path: `answers.${id}`, message: "not a case of this dataset (ignored)" });
  }
  const all = Object.values(cases);
  const conditions = {} as Record<Condition, number>;
  const fieldMeans = {} as Record<Condition, Record<Field, number>>;
  for (const condition of CONDITIONS) {
    conditions[condition] = mean(all.map((r) => r[condition].score));
    fieldMeans[condition] = Object.fromEntries(FIELDS.map((f) => [f, mean(all.map((r) => r[condition].fields[f]))])) as Record<
      Field,
      number
    >;
  }
  const overall = mean(all.flatMap((r) => CONDITIONS.map((k) => r[k].score)));
  return { overall, conditions, fieldMeans, cases, problems };
}
