import type { HandoffCase } from "./dataset-schema.js";
import { FIELDS, FIELD_QUESTIONS, isSingleValue, type Condition } from "./fields.js";

/** Bump whenever the rendered text changes: submissions record it, so scores name the prompt they answered. */
export const PROMPT_VERSION = 1;

const CONTEXT_KIND: Record<Condition, string> = {
  transcript: "the chronological conversation transcript of the work so far",
  memory: "a compressed free-form memory of the work so far",
  handoff: "a structured continuation handoff written when the work was interrupted",
};

function answerShape(): string {
  const lines = FIELDS.map((f, i) => `  "${f}": ${isSingleValue(f) ? "string" : "string[]"}${i < FIELDS.length - 1 ? "," : ""}`);
  return ["{", ...lines, "}"].join("\n");
}

/**
 * The whole prompt for one case under one condition: the context, the candidate statements and the
 * exact answer shape. The case title and notes are never shown (they would hint at the answer).
 * A pure function of the case, so the same dataset always gives the same bytes.
 */
export function renderPrompt(c: HandoffCase, condition: Condition): string {
  const out: string[] = [];
  out.push(
    `You are taking over a piece of interrupted software work. Below is ${CONTEXT_KIND[condition]}.`,
    "Read it, then choose, for each field, the candidate statements that describe the work as it stands now.",
    "",
    "----- BEGIN CONTEXT -----",
    c.conditions[condition].trim(),
    "----- END CONTEXT -----",
    "",
    "Candidates:",
  );
  for (const field of FIELDS) {
    const how = isSingleValue(field) ? "choose exactly one id" : "choose every id that applies; the list may be empty";
    out.push("", `${field}: ${FIELD_QUESTIONS[field]} (${how})`);
    for (const cand of c.candidates[field]) out.push(`- ${cand.id}: ${cand.text.replace(/\s+/g, " ").trim()}`);
  }
  out.push(
    "",
    "Answer with one JSON object of exactly this shape, where string is one candidate id of that field",
    "and string[] is a list of candidate ids of that field:",
    "",
    answerShape(),
    "",
    "Reply with that JSON object only (a ```json fenced block around it is also accepted).",
  );
  return `${out.join("\n")}\n`;
}

export function promptFileName(caseId: string, condition: Condition): string {
  return `${caseId}.${condition}.txt`;
}
