import { z } from "zod";
import { readJson } from "../core/json-file.js";
import { InputError, zodProblems } from "../core/errors.js";

/** One scripted tool call: the tool's name as the client knows it (`write`, `edit`, `bash`, …) and its arguments. */
export const scriptToolCallSchema = z
  .object({
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

const usageSchema = z
  .object({
    prompt_tokens: z.number().int().nonnegative().optional(),
    completion_tokens: z.number().int().nonnegative().optional(),
    cached_tokens: z.number().int().nonnegative().optional(),
    reasoning_tokens: z.number().int().nonnegative().optional(),
    /** Input tokens written to a prompt cache (reported by protocols that have the field: Anthropic). */
    cache_write_tokens: z.number().int().nonnegative().optional(),
  })
  .strict();

/**
 * One answer of the model. A turn is eligible for a request when every `match` substring occurs in the
 * last user message and `match_regex` (if any) matches it; its named groups become template variables.
 * `{{workspace}}` is the path on the request's `Workspace:` line (the harness message format).
 */
export const scriptTurnSchema = z
  .object({
    match: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
    match_regex: z.string().min(1).optional(),
    /** Which requests the turn may answer: agent steps (with tools), auxiliary calls (no tools), or any. */
    requests: z.enum(["agent", "auxiliary", "any"]).default("agent"),
    text: z.string().optional(),
    tool_calls: z.array(scriptToolCallSchema).optional(),
    usage: usageSchema.optional(),
    /** Answer with this HTTP status and error message instead (to test error paths). */
    error: z
      .object({ status: z.number().int().min(400).max(599), message: z.string() })
      .strict()
      .optional(),
    /** Wait this long before answering (to test deadlines). */
    delay_ms: z.number().int().nonnegative().optional(),
  })
  .strict()
  .refine((t) => t.text !== undefined || (t.tool_calls?.length ?? 0) > 0 || t.error !== undefined, {
    message: "a turn needs text, tool_calls or error",
  });

export const scriptSchema = z
  .object({
    turns: z.array(scriptTurnSchema),
    /** Text answered when no turn is eligible (also to auxiliary calls such as title generation). */
    fallback: z.string().default("Done."),
    /** Model ids listed by GET /v1/models. */
    models: z.array(z.string().min(1)).default(["mock"]),
  })
  .strict();

export type ScriptToolCall = z.infer<typeof scriptToolCallSchema>;
export type Script = z.infer<typeof scriptSchema>;
export type ScriptInput = z.input<typeof scriptSchema> | z.input<typeof scriptTurnSchema>[];

/** Accepts the full object form or a bare list of turns. */
export function parseScript(value: unknown, file = "script"): Script {
  const parsed = scriptSchema.safeParse(Array.isArray(value) ? { turns: value } : value);
  if (!parsed.success) throw new InputError(zodProblems(file, parsed.error));
  return parsed.data;
}

export function loadScript(file: string): Script {
  return parseScript(readJson(file), file);
}

/** What the server knows about one request when it picks a turn. */
export interface RequestView {
  lastUserText: string;
  hasTools: boolean;
}

/** Picks the first unused eligible turn and the template variables it binds, or null. */
export function pickTurn(script: Script, used: Set<number>, req: RequestView): { index: number; vars: Record<string, string> } | null {
  for (const [index, turn] of script.turns.entries()) {
    if (used.has(index)) continue;
    if (turn.requests === "agent" && !req.hasTools) continue;
    if (turn.requests === "auxiliary" && req.hasTools) continue;
    const needles = turn.match === undefined ? [] : Array.isArray(turn.match) ? turn.match : [turn.match];
    if (!needles.every((n) => req.lastUserText.includes(n))) continue;
    const vars: Record<string, string> = {};
    const ws = /^Workspace: (.+)$/m.exec(req.lastUserText);
    if (ws) vars.workspace = ws[1]!.trim();
    if (turn.match_regex !== undefined) {
      const m = new RegExp(turn.match_regex, "m").exec(req.lastUserText);
      if (!m) continue;
      for (const [k, v] of Object.entries(m.groups ?? {})) if (v !== undefined) vars[k] = v;
    }
    return { index, vars };
  }
  return null;
}

/** Replaces `{{name}}` in every string of a JSON value; unknown names are left as they are. */
export function fillTemplate<T>(value: T, vars: Record<string, string>): T {
  if (typeof value === "string") {
    return value.replace(/\{\{(\w+)\}\}/g, (all, name: string) => vars[name] ?? all) as T;
  }
  if (Array.isArray(value)) return value.map((v: unknown) => fillTemplate(v, vars)) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillTemplate(v, vars)])) as T;
  }
  return value;
}
