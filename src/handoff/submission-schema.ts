import { z } from "zod";
import { strict } from "./strict-object.js";

/** What a declared retry rule may retry on; nothing is retried unless declared before the run. */
export const RETRY_ON = ["invalid-json", "http-error"] as const;
export type RetryOn = (typeof RETRY_ON)[number];

/** Record fields report absence as "missing", like every other file of the project. */
const str = () => z.string({ error: (iss) => (iss.input === undefined ? "missing" : "must be a string (may be empty)") });
const num = () => z.number({ error: (iss) => (iss.input === undefined ? "missing" : "must be a number") });
const count = num().int().nonnegative();

export const retryPolicySchema = strict(
  {
    retries: count,
    retry_on: z.array(z.enum(RETRY_ON)),
    delay_ms: count,
  },
  "retry policy",
);

export const usageSchema = strict(
  { input_tokens: count.nullable(), output_tokens: count.nullable(), total_tokens: count.nullable() },
  "usage",
);

/** The reproducibility record: everything needed to rerun (or distrust) a submission. */
export const recordSchema = strict(
  {
    provider: str(),
    /** The model id as requested. */
    model: str(),
    /** The model id(s) the API reported in its responses (or what a person filled in). */
    model_version: str(),
    /** When the run started (ISO 8601). */
    date: str(),
    /** null: the provider's default. */
    temperature: num().nullable(),
    system_prompt: str(),
    /** Host or API: the base URL requests went to (or e.g. a chat UI's name). */
    host: str(),
    retry_policy: retryPolicySchema,
    max_output_tokens: count.nullable(),
    seed: num().int().nullable(),
    dataset: strict({ file: str(), version: str(), sha256: str() }, "dataset"),
    prompt_version: num().int().positive(),
    tool: str(),
    /** Token totals over every request of the run, retries included. */
    usage: usageSchema.optional(),
    notes: z.string().optional(),
  },
  "record",
);

/** One field's answer: one id, a list of ids, or null (not answered yet, as in a template). */
export const fieldAnswerSchema = z.union([z.string(), z.array(z.string()), z.null()], {
  error: "an answer is a candidate id, a list of candidate ids, or null",
});

export const conditionAnswersSchema = strict(
  {
    objective: fieldAnswerSchema.optional(),
    current_state: fieldAnswerSchema.optional(),
    decisions: fieldAnswerSchema.optional(),
    evidence: fieldAnswerSchema.optional(),
    constraints: fieldAnswerSchema.optional(),
    next_action: fieldAnswerSchema.optional(),
    owner: fieldAnswerSchema.optional(),
    open_questions: fieldAnswerSchema.optional(),
  },
  "answers",
);

/** Per condition, all optional: a submission may cover only some conditions (the rest score 0). */
function byCondition<T extends z.ZodType>(schema: T) {
  return strict({ transcript: schema.optional(), memory: schema.optional(), handoff: schema.optional() }, "conditions");
}

/** How `run` fared on one case and condition; an invalid response is kept so a resumed run does not retry it. */
export const responseOutcomeSchema = strict(
  {
    outcome: z.enum(["answered", "invalid-json"]),
    /** Why the response was unusable (for invalid-json). */
    detail: z.string().optional(),
    /** Parts of a usable response that were ignored or dropped (unknown keys, values of the wrong type). */
    problems: z.array(z.string()).optional(),
    attempts: z.number().int().positive(),
    model_version: z.string().optional(),
    finish_reason: z.string().optional(),
    usage: usageSchema.optional(),
  },
  "response",
);

export const submissionSchema = strict(
  {
    record: recordSchema,
    answers: z.record(z.string(), byCondition(conditionAnswersSchema)),
    /** Written by `run`; absent in hand-filled submissions. */
    responses: z.record(z.string(), byCondition(responseOutcomeSchema)).optional(),
  },
  "submission",
);

export type Submission = z.infer<typeof submissionSchema>;
export type SubmissionRecord = z.infer<typeof recordSchema>;
export type ConditionAnswers = z.infer<typeof conditionAnswersSchema>;
export type ResponseOutcome = z.infer<typeof responseOutcomeSchema>;
export type Usage = z.infer<typeof usageSchema>;
export type RetryPolicy = z.infer<typeof retryPolicySchema>;
