import { z } from "zod";
import { stateWriteSchema } from "./rcm-state-write.js";

/**
 * One line of the proxy's log (`--log FILE`, and `rcm-proxy.jsonl` of a session run with `run --rcm`):
 * what RCM did with one request. Headers, keys and bodies are never logged.
 */
export const proxyLogEntrySchema = z
  .object({
    time: z.string(),
    seq: z.number().int().nonnegative(),
    method: z.string(),
    path: z.string(),
    mode: z.enum(["off", "router", "rcm"]),
    /** The API the request was read as (null: none of the four; forwarded as is). */
    protocol: z.string().nullable(),
    /** assembled: RCM's history went upstream; pass: the request went as sent (reason says why); fail_open: RCM failed and the request went as sent (error says why). */
    action: z.enum(["assembled", "pass", "fail_open"]),
    reason: z.string().optional(),
    error: z.string().optional(),
    /** The conversation (the group id of its first request). */
    conversation: z.string().optional(),
    /** The current request's group, its task, the routing confidence, whether history was filtered, groups dropped and elided, characters of the record added. */
    step: z
      .object({
        group: z.string(),
        active: z.string().nullable(),
        confidence: z.number(),
        filtered: z.boolean(),
        dropped: z.number(),
        elided: z.number(),
        record_chars: z.number(),
      })
      .strict()
      .optional(),
    /** Groups kept (the current one included), and the dropped and elided ones as `group:task`. */
    kept: z.number().int().nonnegative().optional(),
    dropped: z.array(z.string()).optional(),
    elided: z.array(z.string()).optional(),
    /** Who writes the conversation's task records (mode rcm): the auxiliary model, or the deterministic updater. */
    state: z.enum(["model", "extractive"]).optional(),
    /** Batches folded into task records while preparing this request (a model-written batch, or one left extractive and why). */
    state_writes: z.array(stateWriteSchema).optional(),
    /** Entries of the conversation list received and sent upstream. */
    entries: z.object({ in: z.number(), out: z.number() }).strict().optional(),
    /** CPU time the proxy spent reading, planning and writing the body (not the upstream's time). */
    cpu_ms: z.number().nonnegative(),
    /** The upstream's HTTP status (null: it could not be reached). */
    upstream_status: z.number().int().nullable(),
  })
  .strict();

export type ProxyLogEntry = z.infer<typeof proxyLogEntrySchema>;
