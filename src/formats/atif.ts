import { z } from "zod";

/**
 * ATIF, the Agent Trajectory Interchange Format of Harbor (RFC 0001, "Changelog v1.7": the RFC in the
 * harbor-framework/harbor repository, rfcs/0001-trajectory-format.md, and its pydantic models under
 * src/harbor/models/trajectories/). Field names, which fields are required, and the rules Harbor's
 * validator enforces are taken from there; every object forbids fields it does not list, as Harbor's
 * models do (`extra: "forbid"`), so custom data goes in the `extra` objects only.
 * `switch-swe export atif` writes one such document per session (docs/export.md).
 */
export const ATIF_SCHEMA_VERSION = "ATIF-v1.7";

const extra = z.record(z.string(), z.unknown());
const count = z.number().int().nonnegative();

/** v1.6 multimodal content: text, or an image file referenced by path or URL. */
const contentPartSchema = z
  .object({
    type: z.enum(["text", "image"]),
    text: z.string().optional(),
    source: z.object({ media_type: z.string(), path: z.string() }).strict().optional(),
  })
  .strict();

const contentSchema = z.union([z.string(), z.array(contentPartSchema)]);

export const atifToolCallSchema = z
  .object({
    tool_call_id: z.string(),
    function_name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    extra: extra.optional(),
  })
  .strict();

/** v1.7: resolvable by `trajectory_id` (embedded) or `trajectory_path` (another file); `session_id` is informational. */
const subagentTrajectoryRefSchema = z
  .object({
    session_id: z.string().optional(),
    trajectory_id: z.string().optional(),
    trajectory_path: z.string().optional(),
    extra: extra.optional(),
  })
  .strict()
  .refine(
    (r) => r.trajectory_id !== undefined || r.trajectory_path !== undefined,
    "a subagent reference needs trajectory_id or trajectory_path",
  );

const observationResultSchema = z
  .object({
    /** The tool_call_id of a tool call of the same step; absent for results of no tool call. */
    source_call_id: z.string().optional(),
    content: contentSchema.optional(),
    subagent_trajectory_ref: z.array(subagentTrajectoryRefSchema).optional(),
    extra: extra.optional(),
  })
  .strict();

const observationSchema = z.object({ results: z.array(observationResultSchema) }).strict();

/** Per step. `prompt_tokens` counts every input token, cached ones included; `cached_tokens` is the part of them served from a cache. */
export const atifMetricsSchema = z
  .object({
    prompt_tokens: count.optional(),
    completion_tokens: count.optional(),
    cached_tokens: count.optional(),
    cost_usd: z.number().nonnegative().optional(),
    prompt_token_ids: z.array(z.number().int()).optional(),
    completion_token_ids: z.array(z.number().int()).optional(),
    logprobs: z.array(z.number()).optional(),
    extra: extra.optional(),
  })
  .strict();

export const atifFinalMetricsSchema = z
  .object({
    total_prompt_tokens: count.optional(),
    total_completion_tokens: count.optional(),
    total_cached_tokens: count.optional(),
    total_cost_usd: z.number().nonnegative().optional(),
    total_steps: count.optional(),
    extra: extra.optional(),
  })
  .strict();

const agentSchema = z
  .object({
    name: z.string(),
    version: z.string(),
    model_name: z.string().optional(),
    tool_definitions: z.array(z.record(z.string(), z.unknown())).optional(),
    extra: extra.optional(),
  })
  .strict();

const stepSchema = z
  .object({
    step_id: z.number().int().positive(),
    timestamp: z.string().optional(),
    source: z.enum(["system", "user", "agent"]),
    model_name: z.string().optional(),
    reasoning_effort: z.union([z.string(), z.number()]).optional(),
    message: contentSchema,
    reasoning_content: z.string().optional(),
    tool_calls: z.array(atifToolCallSchema).optional(),
    observation: observationSchema.optional(),
    metrics: atifMetricsSchema.optional(),
    is_copied_context: z.boolean().optional(),
    /** v1.7: LLM inferences this step stands for; 0 on an agent step = a deterministic dispatch (no metrics, no reasoning). */
    llm_call_count: count.optional(),
    extra: extra.optional(),
  })
  .strict();

/** Fields Harbor allows on agent steps only. */
const agentOnly = ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"] as const;

interface TrajectoryShape {
  schema_version: string;
  session_id?: string | undefined;
  trajectory_id?: string | undefined;
  agent: z.infer<typeof agentSchema>;
  steps: Array<z.infer<typeof stepSchema>>;
  notes?: string | undefined;
  final_metrics?: z.infer<typeof atifFinalMetricsSchema> | undefined;
  continued_trajectory_ref?: string | undefined;
  extra?: Record<string, unknown> | undefined;
  subagent_trajectories?: TrajectoryShape[] | undefined;
}

/** The rules Harbor's models check beyond field types: step ids 1..n in order, agent-only fields, tool-call references. */
function checkSteps(t: TrajectoryShape, ctx: z.RefinementCtx): void {
  t.steps.forEach((step, i) => {
    const at = (...path: PropertyKey[]) => ["steps", i, ...path];
    if (step.step_id !== i + 1)
      ctx.addIssue({ code: "custom", path: at("step_id"), message: `expected ${i + 1} (step ids count from 1 in order)` });
    if (step.source !== "agent") {
      for (const f of agentOnly)
        if (step[f] !== undefined)
          ctx.addIssue({ code: "custom", path: at(f), message: `only allowed on agent steps, this one is "${step.source}"` });
    } else if (step.llm_call_count === 0) {
      for (const f of ["metrics", "reasoning_content"] as const) {
        if (step[f] !== undefined) ctx.addIssue({ code: "custom", path: at(f), message: "must be absent when llm_call_count is 0" });
      }
    }
    const ids = new Set((step.tool_calls ?? []).map((c) => c.tool_call_id));
    step.observation?.results.forEach((r, k) => {
      if (r.source_call_id !== undefined && !ids.has(r.source_call_id)) {
        ctx.addIssue({
          code: "custom",
          path: at("observation", "results", k, "source_call_id"),
          message: `"${r.source_call_id}" is no tool_call_id of this step`,
        });
      }
    });
  });
}

export const atifTrajectorySchema: z.ZodType<TrajectoryShape> = z
  .object({
    schema_version: z.enum([
      "ATIF-v1.0",
      "ATIF-v1.1",
      "ATIF-v1.2",
      "ATIF-v1.3",
      "ATIF-v1.4",
      "ATIF-v1.5",
      "ATIF-v1.6",
      ATIF_SCHEMA_VERSION,
    ]),
    /** Run-scoped since v1.7 (optional; may be shared by continuation trajectories). */
    session_id: z.string().optional(),
    /** v1.7: this document's own identifier. */
    trajectory_id: z.string().optional(),
    agent: agentSchema,
    steps: z.array(stepSchema),
    notes: z.string().optional(),
    final_metrics: atifFinalMetricsSchema.optional(),
    /** The file that continues this conversation when it was split over several trajectories. */
    continued_trajectory_ref: z.string().optional(),
    extra: extra.optional(),
    get subagent_trajectories() {
      return z.array(atifTrajectorySchema).optional();
    },
  })
  .strict()
  .superRefine(checkSteps);

export type AtifTrajectory = z.infer<typeof atifTrajectorySchema>;
export type AtifStep = AtifTrajectory["steps"][number];
export type AtifToolCall = z.infer<typeof atifToolCallSchema>;
export type AtifMetrics = z.infer<typeof atifMetricsSchema>;
export type AtifFinalMetrics = z.infer<typeof atifFinalMetricsSchema>;
