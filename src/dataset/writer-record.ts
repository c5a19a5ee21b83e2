import { z } from "zod";

/**
 * How a request text came from a writer model (`--writer-model`): `written` when the model's
 * rewrite passed the check and replaced the derived text; `refused` when its rewrite failed the
 * check twice and the derived text was kept (`reason` says why). Recorded in task.json (per request)
 * and in the manifest (per stage), so a reader always knows whether a text was written for the dataset.
 */
const common = {
  /** PROVIDER:MODEL as given to --writer-model. */
  model: z.string().min(1),
  /** The model version the endpoint reported, when it reported one. */
  model_version: z.string().min(1).optional(),
  /** sha256 of the system prompt, a blank line and the user prompt of the last attempt. */
  prompt_sha256: z.string().regex(/^[0-9a-f]{64}$/, "a sha256 (64 hex digits)"),
  /** Version of the writer's prompt and check (docs/mining.md shows both). */
  prompt_version: z.string().min(1),
  /** ISO time of the last attempt. */
  at: z.iso.datetime(),
  attempts: z.number().int().min(1),
};

export const writerRecordSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("written"), ...common }).strict(),
  z.object({ status: z.literal("refused"), ...common, reason: z.string().min(1) }).strict(),
]);

export type WriterRecord = z.infer<typeof writerRecordSchema>;
