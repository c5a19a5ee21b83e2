import { FIELDS, type Field } from "./fields.js";
import type { ConditionAnswers } from "./submission-schema.js";

export type ParsedResponse = { kind: "answer"; answers: ConditionAnswers; problems: string[] } | { kind: "invalid-json"; detail: string };

// The whole reply may be one fenced block (```json or bare ```); nothing else is unwrapped or repaired.
const FENCED = /^```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

const FIELD_SET: ReadonlySet<string> = new Set(FIELDS);

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) {
    const odd = value.find((x) => typeof x !== "string");
    return odd === undefined ? "a list" : `a list holding ${describe(odd)}`;
  }
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Reads a model's reply strictly. Text that is not one JSON object scores zero for the whole case
 * and condition; inside an object, values of the wrong type are dropped (that field scores zero)
 * and unknown keys ignored, each noted so the scorer can list it.
 */
export function parseModelResponse(text: string): ParsedResponse {
  const trimmed = text.trim();
  const body = FENCED.exec(trimmed)?.[1] ?? trimmed;
  if (body.trim() === "") return { kind: "invalid-json", detail: "empty response" };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    return { kind: "invalid-json", detail: (e as Error).message.slice(0, 200) };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { kind: "invalid-json", detail: `the JSON is ${describe(value)}, not an object` };
  }
  const answers: ConditionAnswers = {};
  const problems: string[] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (!FIELD_SET.has(key)) {
      problems.push(`unknown key "${key}" in the response (ignored)`);
      continue;
    }
    const field = key as Field;
    if (typeof v === "string" || v === null || (Array.isArray(v) && v.every((x) => typeof x === "string"))) {
      answers[field] = v as string | string[] | null;
    } else {
      problems.push(`${field}: ${describe(v)} is not an id or a list of ids (dropped)`);
    }
  }
  return { kind: "answer", answers, problems };
}
