import { z } from "zod";

/**
 * `effort=` of the real CLI agents. The paper runs every agent at the highest reasoning effort its harness
 * exposes, so that is the default here too: `effort=max` (also when no effort is given) asks each CLI for its
 * own highest value; `effort=default` sends no setting (the CLI's own default); any other value is the CLI's
 * own name for a level and is passed as it is. The highest value per CLI is documented in docs/agents.md.
 */
export const highestEffort = "max";
export const cliDefaultEffort = "default";

/** The option's schema: the CLI's own levels, plus `max` and `default`. */
export function effortOption<L extends string>(levels: readonly [L, ...L[]]) {
  return z.enum([...new Set([...levels, highestEffort, cliDefaultEffort])] as [string, ...string[]]).optional();
}

/** The setting sent to the CLI (null: none, the CLI's own default), from the option as given. */
export function effectiveEffort(given: string | undefined, highest: string): string | null {
  const v = given ?? highestEffort;
  if (v === cliDefaultEffort) return null;
  return v === highestEffort ? highest : v;
}

/**
 * OpenCode's reasoning effort is a model variant, and which variants exist depends on the model: its
 * highest by model family (Anthropic models `max`, OpenAI reasoning models `xhigh`, Gemini `high`), else
 * `high`, the highest level every OpenAI-compatible API accepts. The first pattern that matches wins.
 */
const opencodeHighest: ReadonlyArray<[RegExp, string]> = [
  [/claude|anthropic/i, "max"],
  [/gpt-5|(^|\/)o[134](-|$)|codex|openai/i, "xhigh"],
  [/gemini|google/i, "high"],
];

export function opencodeHighestEffort(model: string): string {
  return opencodeHighest.find(([re]) => re.test(model))?.[1] ?? "high";
}
