import type { HandoffDataset } from "./dataset-schema.js";
import { FIELDS, isSingleValue } from "./fields.js";
import type { Problem } from "../core/errors.js";

/**
 * What a valid dataset may still want a second look at (printed by `handoff validate`, never a reason
 * to refuse scoring): a field with a single candidate, either the answer (nothing to tell apart) or
 * a distractor of a set field (the right answer is the empty set).
 */
export function datasetWarnings(file: string, dataset: HandoffDataset): Problem[] {
  const out: Problem[] = [];
  dataset.cases.forEach((c, i) => {
    for (const field of FIELDS) {
      if (c.candidates[field].length !== 1) continue;
      const answer = c.answer[field];
      const emptyKey = !isSingleValue(field) && Array.isArray(answer) && answer.length === 0;
      const message = emptyKey
        ? "warning: the only candidate is a distractor (the right answer is the empty set)"
        : "warning: a single candidate (the field tells nothing apart)";
      out.push({ file, path: `cases[${i}].candidates.${field}`, message });
    }
  });
  return out;
}
