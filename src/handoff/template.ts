import { CONDITIONS, FIELDS, type Condition } from "./fields.js";
import type { LoadedHandoffDataset } from "./load-dataset.js";
import { blankRecord } from "./record.js";
import type { ConditionAnswers, Submission } from "./submission-schema.js";

/** Every field null: a template scores 0 until filled in (an empty list would already match an empty key). */
export function makeTemplate(loaded: LoadedHandoffDataset): Submission {
  const blank = Object.fromEntries(FIELDS.map((f) => [f, null])) as ConditionAnswers;
  const answers: Submission["answers"] = {};
  for (const c of loaded.dataset.cases) {
    answers[c.id] = Object.fromEntries(CONDITIONS.map((k) => [k, { ...blank }])) as Record<Condition, ConditionAnswers>;
  }
  return { record: blankRecord(loaded), answers };
}
