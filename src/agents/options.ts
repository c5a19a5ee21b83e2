import type { z } from "zod";
import { InputError, inputError, zodProblems } from "../core/errors.js";

/** `--agent-opt key=value` pairs as a record; a pair without `=` or a repeated key is bad input. */
export function parseAgentOptionPairs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw inputError("--agent-opt", "", `"${pair}" is not key=value`);
    const key = pair.slice(0, eq);
    if (Object.hasOwn(out, key)) throw inputError("--agent-opt", key, "given twice");
    out[key] = pair.slice(eq + 1);
  }
  return out;
}

/** Checks an agent's options against its schema; an unknown key or a bad value names the key. */
export function validateAgentOptions<S extends z.ZodType>(agent: string, schema: S, options: Record<string, string>): z.output<S> {
  const parsed = schema.safeParse(options);
  if (parsed.success) return parsed.data;
  const problems = zodProblems("--agent-opt", parsed.error).map((p) => {
    const issue = parsed.error.issues.find((i) => i.code === "unrecognized_keys");
    if (issue && issue.code === "unrecognized_keys" && p.message === issue.message) {
      return { ...p, path: issue.keys.join(", "), message: `unknown option of agent ${agent}` };
    }
    return p;
  });
  throw new InputError(problems);
}
