import { z } from "zod";
import { tokenTotal, type AgentEvent } from "./trajectory-schema.js";

export const usageSchema = z
  .object({
    /** Sum of tokenTotal over model calls: input + cached input + cache writes + output + reasoning not in output. */
    tokens: z.number().nonnegative(),
    input_tokens: z.number().nonnegative(),
    cached_input_tokens: z.number().nonnegative(),
    cache_write_tokens: z.number().nonnegative(),
    output_tokens: z.number().nonnegative(),
    reasoning_tokens: z.number().nonnegative(),
    model_calls: z.number().int().nonnegative(),
    /** Model calls made by a context manager rather than the agent's own loop (included in the totals). */
    auxiliary_model_calls: z.number().int().nonnegative(),
    tool_calls: z.number().int().nonnegative(),
    /** Sum of the costs the agent reported; null when no model call reported one. */
    cost_usd: z.number().nonnegative().nullable(),
  })
  .strict();

export type Usage = z.infer<typeof usageSchema>;

export function emptyUsage(): Usage {
  return {
    tokens: 0,
    input_tokens: 0,
    cached_input_tokens: 0,
    cache_write_tokens: 0,
    output_tokens: 0,
    reasoning_tokens: 0,
    model_calls: 0,
    auxiliary_model_calls: 0,
    tool_calls: 0,
    cost_usd: null,
  };
}

/** Adds one agent event to running totals (in place). */
export function addUsage(u: Usage, e: AgentEvent): void {
  if (e.kind === "tool_call") {
    u.tool_calls++;
    return;
  }
  if (e.kind !== "model_call") return;
  u.tokens += tokenTotal(e);
  u.input_tokens += e.input_tokens;
  u.cached_input_tokens += e.cached_input_tokens ?? 0;
  u.cache_write_tokens += e.cache_write_tokens ?? 0;
  u.output_tokens += e.output_tokens;
  u.reasoning_tokens += e.reasoning_tokens ?? 0;
  u.model_calls++;
  if (e.auxiliary) u.auxiliary_model_calls++;
  if (e.cost_usd !== undefined) u.cost_usd = (u.cost_usd ?? 0) + e.cost_usd;
}
