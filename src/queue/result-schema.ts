import { gunzipSync, gzipSync } from "node:zlib";
import { z } from "zod";
import { sessionSummarySchema } from "../formats/session-summary.js";
import { verdictSchema } from "../formats/verdict.js";
import { queueSecretEnv, type QueueSecret } from "./queue-secret.js";

/** A file of the session directory, by its path relative to it (checked before it is written). */
const shippedFileSchema = z.object({ path: z.string().min(1), b64: z.string() }).strict();

/**
 * What a worker sends back for one session attempt: how it ended, the session summary (without the
 * ledger's list of attempts, which the coordinator owns) and every file of the attempt (trajectory,
 * artifact and workspace patches, agent logs) as it would lie in the session directory of a local run.
 */
export const sessionResultSchema = z
  .object({
    format: z.literal("switch-swe.queue-result/1"),
    session: z.string(),
    attempt: z.number().int().positive(),
    worker: z.string(),
    outcome: z.enum(["finished", "infra_fault", "failed", "interrupted"]),
    detail: z.string().nullable(),
    /** null when the harness failed outside the attempt's own handling (nothing to summarize). */
    summary: sessionSummarySchema.omit({ attempts: true }).nullable(),
    files: z.array(shippedFileSchema),
  })
  .strict();

export const verifyResultSchema = z
  .object({
    format: z.literal("switch-swe.queue-verdict/1"),
    session: z.string(),
    worker: z.string(),
    verdict: verdictSchema,
    log_b64: z.string(),
  })
  .strict();

export type SessionResult = z.infer<typeof sessionResultSchema>;
export type VerifyResult = z.infer<typeof verifyResultSchema>;

/** The result as stored: gzip JSON, signed with the queue secret for the key it is stored under. */
export function encodeResult(value: unknown, secret: QueueSecret, key: string): Buffer {
  return secret.sign(gzipSync(Buffer.from(JSON.stringify(value))), key);
}

/**
 * Decodes a stored result: one not signed with the queue secret for this key (forged by someone who
 * reached Redis, or moved from another key) throws, as anything malformed does, with the reason.
 */
export function decodeResult<S extends z.ZodType>(data: Buffer, schema: S, secret: QueueSecret, key: string): z.output<S> {
  const payload = secret.verify(data, key);
  if (payload === null)
    throw new Error(
      `unauthenticated result: not signed with this run's ${queueSecretEnv} for ${key} (forged, or written by a worker with another secret)`,
    );
  const parsed = schema.safeParse(JSON.parse(gunzipSync(payload).toString("utf8")));
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new Error(`malformed result: ${i ? `${i.path.join(".")}: ${i.message}` : "invalid"}`);
  }
  return parsed.data;
}
