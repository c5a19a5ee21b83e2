import { z } from "zod";
import { conditionSchema, workspaceNameSchema } from "./sessions.js";
import { usageSchema } from "./usage.js";

const patchInfoSchema = z
  .object({
    /** Path relative to the session directory. */
    path: z.string(),
    bytes: z.number().int().nonnegative(),
    sha256: z.string(),
    files: z.array(z.string()),
  })
  .strict();

/** What normalizing an agent's submission did (src/run/submission.ts), in the order the steps run. */
export const normalizationSteps = ["bom", "crlf", "json", "fence", "tags", "prefixes", "trailing_newline"] as const;

/** RUN_DIR/sessions/<session>/session.json: the outcome of the session's last attempt. */
export const sessionSummarySchema = z
  .object({
    format: z.literal("switch-swe.session/1"),
    session: z.string(),
    pair: z.string(),
    focus: z.string(),
    condition: conditionSchema,
    /** finished: every request was delivered and the artifacts saved; failed: infrastructure faults
     * exhausted the retries (or the harness failed), so the session says nothing about the agent. */
    status: z.enum(["finished", "failed"]),
    reason: z.string().optional(),
    /** The finalization request ended with the agent yielding. */
    finalized: z.boolean(),
    attempt: z.number().int().positive(),
    /** Every attempt of this session so far, as the ledger records them. */
    attempts: z.array(z.object({ attempt: z.number().int(), status: z.string(), detail: z.string().nullable() }).strict()),
    conversation: z.string().nullable(),
    started_at: z.string(),
    ended_at: z.string(),
    duration_ms: z.number().nonnegative(),
    requests: z
      .object({
        scheduled: z.number().int().nonnegative(),
        delivered: z.number().int().nonnegative(),
        yielded: z.number().int().nonnegative(),
        timeout: z.number().int().nonnegative(),
        agent_error: z.number().int().nonnegative(),
      })
      .strict(),
    /** Requests that ended in a timeout (continuations included). */
    timeouts: z.number().int().nonnegative(),
    /** Timeout continuations sent (at most max_continuations of run.json). */
    continuations: z.number().int().nonnegative(),
    usage: usageSchema,
    /** The scored artifact (artifact.patch): the focus workspace's patch, or under `--submission agent` the agent's normalized submission; null when the session failed or the agent submitted none. */
    artifact: patchInfoSchema.nullable(),
    /** The other four workspaces' patches (workspaces/wNN.patch), for analysis only. */
    workspaces: z.partialRecord(workspaceNameSchema, patchInfoSchema),
    focus_workspace: workspaceNameSchema,
    /** The focus checkout's patch (checkout.patch) when the artifact is the agent's submission (`run --submission agent`). */
    checkout: patchInfoSchema.optional(),
    /**
     * How the artifact was taken (absent in runs made before it was recorded: the checkout). `agent`: the file
     * the agent submitted, `submitted` (normalized by `normalized`, docs/run-format.md), `missing` or
     * `unparsable` (then no artifact, and the verdict is unresolved: a submission failure).
     */
    submission: z
      .object({
        mode: z.enum(["agent", "checkout"]),
        status: z.enum(["submitted", "missing", "unparsable"]).optional(),
        detail: z.string().optional(),
        normalized: z.array(z.enum(normalizationSteps)).optional(),
      })
      .strict()
      .optional(),
    /** Workspaces the agent damaged so that no patch could be taken (deleted, or the base revision unreadable). */
    damaged_workspaces: z.partialRecord(workspaceNameSchema, z.string()).optional(),
    /** Special files (FIFO, socket, device) the agent left in a workspace: not part of its patch, which is collected all the same. */
    skipped_special_files: z.partialRecord(workspaceNameSchema, z.array(z.string())).optional(),
  })
  .strict();

export type SessionSummary = z.infer<typeof sessionSummarySchema>;
export type PatchInfo = z.infer<typeof patchInfoSchema>;

/**
 * session.json as a report reads it: optional, and a field of the wrong type (an older or damaged file)
 * is treated as absent rather than rejecting the session.
 */
export const sessionSummaryReadSchema = z.looseObject({
  status: z.string().optional().catch(undefined),
  reason: z.string().optional().catch(undefined),
  finalized: z.boolean().optional().catch(undefined),
  attempts: z
    .union([z.number(), z.array(z.unknown())])
    .optional()
    .catch(undefined),
  timeouts: z.number().optional().catch(undefined),
  continuations: z.number().optional().catch(undefined),
  submission: z.looseObject({ mode: z.string(), status: z.string().optional(), detail: z.string().optional() }).optional().catch(undefined),
});

export type SessionSummaryRead = z.infer<typeof sessionSummaryReadSchema>;
