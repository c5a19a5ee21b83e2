import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { rcmModes } from "./history.js";

export const auxModelSchema = z
  .object({
    baseURL: z.string().url(),
    model: z.string().min(1),
    apiKey: z.string().optional(),
    /** Name of an environment variable holding the API key (keeps the key out of config files). */
    apiKeyEnv: z.string().optional(),
    timeoutMs: z.number().int().positive().optional(),
    stateUpdates: z.boolean().optional(),
  })
  .strict();

/** Options of RCM (the OpenCode plugin's options in opencode.json, and the engine's). */
export const rcmOptionsSchema = z
  .object({
    mode: z.enum(rcmModes).default("rcm"),
    /** Minimum routing confidence for history to be filtered; below it the full history is kept. */
    threshold: z.number().min(0).max(1).default(0.8),
    /** Where per-session state is kept; relative paths are resolved against the project directory. */
    stateDir: z.string().min(1).optional(),
    /** The active task's most recent groups that always keep their exchanges verbatim. */
    keepRecent: z.number().int().nonnegative().default(2),
    /** At most this many completed groups are folded into state records per model step. */
    batchSize: z.number().int().positive().default(8),
    /** Optional OpenAI-compatible model for undecided routing (and, with stateUpdates, state items). */
    auxModel: auxModelSchema.optional(),
  })
  .strict();

export type RcmOptions = z.output<typeof rcmOptionsSchema>;
export type RcmOptionsInput = z.input<typeof rcmOptionsSchema>;

/** Parses options; problems are reported as one readable line each. */
export function parseRcmOptions(value: unknown): RcmOptions {
  const parsed = rcmOptionsSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  throw new Error(`switch-swe RCM options: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(options)"}: ${i.message}`).join("; ")}`);
}

/**
 * The state directory: the `stateDir` option (relative to the project directory), else
 * `$XDG_STATE_HOME/switch-swe/rcm`, else `~/.local/state/switch-swe/rcm`. It is outside the project
 * by default so that plugin state never shows up in a repository's changes.
 */
export function resolveStateDir(stateDir: string | undefined, projectDir: string, env: NodeJS.ProcessEnv = process.env): string {
  if (stateDir) return isAbsolute(stateDir) ? stateDir : resolve(projectDir, stateDir);
  const xdg = env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : join(env.HOME || homedir(), ".local", "state");
  return join(xdg, "switch-swe", "rcm");
}
