import { z } from "zod";
import { conditionSchema, workspaceNameSchema } from "./sessions.js";
import { proxyLogEntrySchema } from "./rcm-proxy-log.js";

/**
 * What an agent reports while it works on one request. Token fields follow one rule
 * (see tokenTotal): input excludes cached input; cached reads and cache writes are
 * reported separately; reasoning is added only when it is not already inside output.
 */
export const modelCallEventSchema = z
  .object({
    kind: z.literal("model_call"),
    model: z.string().optional(),
    input_tokens: z.number().nonnegative(),
    output_tokens: z.number().nonnegative(),
    cached_input_tokens: z.number().nonnegative().optional(),
    cache_write_tokens: z.number().nonnegative().optional(),
    reasoning_tokens: z.number().nonnegative().optional(),
    /** True when output_tokens already counts the reasoning tokens (OpenAI style). */
    reasoning_in_output: z.boolean().optional(),
    cost_usd: z.number().nonnegative().optional(),
    /** Calls made by a context manager (RCM) rather than by the agent's own loop. */
    auxiliary: z.boolean().optional(),
  })
  .strict();

export const toolCallEventSchema = z
  .object({
    kind: z.literal("tool_call"),
    name: z.string(),
    args: z.unknown().optional(),
    /** Files the call read or wrote, when the agent says so. */
    paths: z.array(z.string()).optional(),
    status: z.string().optional(),
    /** Tool output, truncated by the adapter to keep trajectories bounded. */
    output: z.string().optional(),
  })
  .strict();

export const textEventSchema = z.object({ kind: z.literal("text"), text: z.string() }).strict();
export const agentErrorEventSchema = z.object({ kind: z.literal("error"), message: z.string() }).strict();

/** What the RCM proxy of `run --rcm` did with one model request of the agent (kept, dropped, added). */
export const contextEventSchema = z.object({ kind: z.literal("context"), entry: proxyLogEntrySchema }).strict();

export const agentEventSchema = z.discriminatedUnion("kind", [
  modelCallEventSchema,
  contextEventSchema,
  toolCallEventSchema,
  textEventSchema,
  agentErrorEventSchema,
]);

/** How one request ended. Only `infra_fault` is ever retried (by restarting the session). */
export const requestOutcomeSchema = z.enum(["yielded", "timeout", "agent_error", "infra_fault"]);

/** One file whose content a request changed: blob ids before and after (null = the file did not exist). */
export const fileChangeSchema = z.object({ path: z.string(), before: z.string().nullable(), after: z.string().nullable() }).strict();

/**
 * The working state of one workspace: the git tree id of its files (tracked and untracked, minus
 * .gitignore'd and artifact-excluded paths), null when it could not be read (`error` says why).
 */
export const workspaceTreeSchema = z.object({ tree: z.string().nullable(), error: z.string().optional() }).strict();

/**
 * Per-request evidence (`workspace_state`): after every delivery of a request (and once before the first,
 * without `index`), the tree of each of the five workspaces and the files that changed since the previous
 * state line. Written by the harness from a private index and object store; the agent never sees it.
 */
export const workspaceStateLineSchema = z
  .object({
    type: z.literal("workspace_state"),
    time: z.string(),
    /** The request just delivered; absent for the initial state (workspaces checked out, nothing sent). */
    index: z.number().int().nonnegative().optional(),
    trees: z.record(workspaceNameSchema, workspaceTreeSchema),
    /** Workspaces whose files changed since the previous state line (absent = unchanged). */
    changed: z.partialRecord(workspaceNameSchema, z.array(fileChangeSchema)),
  })
  .strict();

export const trajectoryLineSchema = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("session_start"),
      time: z.string(),
      session: z.string(),
      pair: z.string(),
      condition: conditionSchema,
      attempt: z.number().int().positive(),
      agent: z.string(),
      conversation: z.string().optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("request_start"),
      time: z.string(),
      index: z.number().int().nonnegative(),
      /** Ground truth recorded by the controller; the agent never sees it. */
      task: z.string(),
      role: z.enum(["focus", "interruption"]),
      workspace: workspaceNameSchema,
      workspace_path: z.string(),
      kind: z.enum(["stage", "finalization"]),
      stage: z.number().int().positive().optional(),
      /** Substantive focus request right after work in another workspace. */
      focus_return: z.boolean(),
      /** True for a continuation after a timeout (same request, re-sent). */
      continuation: z.boolean().optional(),
      message: z.string(),
    })
    .strict(),
  z
    .object({
      type: z.literal("agent_event"),
      time: z.string(),
      index: z.number().int().nonnegative(),
      event: agentEventSchema,
    })
    .strict(),
  z
    .object({
      type: z.literal("request_end"),
      time: z.string(),
      index: z.number().int().nonnegative(),
      outcome: requestOutcomeSchema,
      duration_ms: z.number().nonnegative(),
      detail: z.string().optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal("session_end"),
      time: z.string(),
      status: z.enum(["finished", "failed"]),
      finalized: z.boolean(),
      reason: z.string().optional(),
    })
    .strict(),
  workspaceStateLineSchema,
]);

export type ModelCallEvent = z.infer<typeof modelCallEventSchema>;
export type AgentEvent = z.infer<typeof agentEventSchema>;
export type RequestOutcome = z.infer<typeof requestOutcomeSchema>;
export type TrajectoryLine = z.infer<typeof trajectoryLineSchema>;
export type FileChange = z.infer<typeof fileChangeSchema>;

/** The one token-accounting rule of the project: every token once, cached input included. */
export function tokenTotal(e: ModelCallEvent): number {
  const reasoning = e.reasoning_in_output ? 0 : (e.reasoning_tokens ?? 0);
  return e.input_tokens + (e.cached_input_tokens ?? 0) + (e.cache_write_tokens ?? 0) + e.output_tokens + reasoning;
}
