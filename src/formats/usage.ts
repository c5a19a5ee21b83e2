import { z } from "zod";
import { tokenTotal, type AgentEvent } from "./trajectory.js";

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

/**
 * Usage as readers tally it: session.json's fields plus the calls that reported a cost (for cost
 * coverage) and the tokens of auxiliary calls. session.json stores usageOf(tally).
 */
export interface UsageTally extends Usage {
  cost_calls: number;
  auxiliary_tokens: number;
}

export function emptyUsage(): UsageTally {
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
    cost_calls: 0,
    auxiliary_tokens: 0,
  };
}

/** The fields session.json stores. */
export function usageOf(t: UsageTally): Usage {
  const { cost_calls: _c, auxiliary_tokens: _a, ...usage } = t;
  return usage;
}

/** Adds one agent event to running totals (in place). */
export function addEvent(u: UsageTally, e: AgentEvent): void {
  if (e.kind === "tool_call") {
    u.tool_calls++;
    return;
  }
  if (e.kind !== "model_call") return;
  const tokens = tokenTotal(e);
  u.tokens += tokens;
  u.input_tokens += e.input_tokens;
  u.cached_input_tokens += e.cached_input_tokens ?? 0;
  u.cache_write_tokens += e.cache_write_tokens ?? 0;
  u.output_tokens += e.output_tokens;
  u.reasoning_tokens += e.reasoning_tokens ?? 0;
  u.model_calls++;
  if (e.auxiliary) {
    u.auxiliary_model_calls++;
    u.auxiliary_tokens += tokens;
  }
  if (e.cost_usd !== undefined) {
    u.cost_usd = (u.cost_usd ?? 0) + e.cost_usd;
    u.cost_calls++;
  }
}

/** Adds one tally to another (in place); returns `into`. */
export function addUsage(into: UsageTally, u: UsageTally): UsageTally {
  into.tokens += u.tokens;
  into.input_tokens += u.input_tokens;
  into.cached_input_tokens += u.cached_input_tokens;
  into.cache_write_tokens += u.cache_write_tokens;
  into.output_tokens += u.output_tokens;
  into.reasoning_tokens += u.reasoning_tokens;
  into.model_calls += u.model_calls;
  into.auxiliary_model_calls += u.auxiliary_model_calls;
  into.tool_calls += u.tool_calls;
  if (u.cost_usd !== null) into.cost_usd = (into.cost_usd ?? 0) + u.cost_usd;
  into.cost_calls += u.cost_calls;
  into.auxiliary_tokens += u.auxiliary_tokens;
  return into;
}
