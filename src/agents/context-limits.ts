/**
 * Context windows (tokens) of model families, for OpenCode models served from a custom endpoint
 * (OpenCode then knows no limit, and without one its auto-compaction is off). The first pattern that
 * matches the model id wins; `context=N` overrides.
 */
const knownLimits: ReadonlyArray<[RegExp, number]> = [
  [/claude-(opus|sonnet)-4-[5-9]|claude-sonnet-4|claude-opus-4|claude-3-7|claude-haiku-4/i, 200_000],
  [/gpt-5/i, 400_000],
  [/gpt-4\.1/i, 1_047_576],
  [/gpt-4o|o3|o4-mini/i, 128_000],
  [/gemini-(2\.5|3)/i, 1_048_576],
  [/qwen3-coder/i, 262_144],
  [/kimi-k2/i, 262_144],
  [/glm-4\.[5-9]|glm-5/i, 200_000],
  [/deepseek/i, 128_000],
  [/minimax-m2/i, 204_800],
];

/** Where the context limit of an OpenCode model comes from, as run.json says. */
export type ContextLimitSource = "option" | "known" | "default" | "opencode";

/** Used when a custom model is not in the table and no `context=` is given. */
export const defaultContextLimit = 128_000;

/**
 * The context limit OpenCode is told for a model. Without a custom endpoint OpenCode's own model
 * database applies (null); `context=N` wins (0 turns auto-compaction off); then the table; then the default.
 */
export function contextLimit(
  model: string,
  customEndpoint: boolean,
  option: number | undefined,
): { limit: number | null; source: ContextLimitSource } {
  if (option !== undefined) return { limit: option, source: "option" };
  if (!customEndpoint) return { limit: null, source: "opencode" };
  const known = knownLimits.find(([re]) => re.test(model));
  return known ? { limit: known[1], source: "known" } : { limit: defaultContextLimit, source: "default" };
}
