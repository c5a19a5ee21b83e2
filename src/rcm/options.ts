import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { rcmModes } from "./history.js";

/** An OpenAI-compatible endpoint of its own (needs its own key when the endpoint wants one). */
export const auxEndpointSchema = z
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

/** A model of the host's own providers: the session's model, or `PROVIDER/MODEL` (no key of RCM's own). */
export const auxHostSchema = z
  .object({
    host: z.literal(true),
    model: z
      .string()
      .regex(/^[^/\s]+\/\S+$/, "must be PROVIDER/MODEL")
      .optional(),
    timeoutMs: z.number().int().positive().optional(),
    stateUpdates: z.boolean().optional(),
  })
  .strict();

/**
 * The auxiliary model: `"host"` (default: the session's own model through the host's provider
 * settings), `"off"`, `{host: true, model?: "PROVIDER/MODEL", stateUpdates?, timeoutMs?}`, or an
 * endpoint `{baseURL, model, apiKey?|apiKeyEnv?, stateUpdates?, timeoutMs?}`.
 */
export const auxModelSchema = z.union([z.enum(["host", "off"]), auxHostSchema, auxEndpointSchema]);

/** Per-session limits of auxiliary calls; past either one RCM routes deterministically. */
export const auxBudgetSchema = z
  .object({
    calls: z.number().int().nonnegative().default(20),
    tokens: z.number().int().nonnegative().default(50_000),
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
    /**
     * Tasks at least this related to the routed one (shared files and symbols, or likeness of their
     * requests; 0..1) keep their history too; 1 keeps only the request's own tasks.
     */
    related: z.number().min(0).max(1).default(0.5),
    /** The model asked about undecided routing (and, with stateUpdates, for state items). */
    auxModel: auxModelSchema.default("host"),
    /** Per-session budget of auxiliary calls. */
    auxBudget: auxBudgetSchema.default({ calls: 20, tokens: 50_000 }),
  })
  .strict();

export type RcmOptions = z.output<typeof rcmOptionsSchema>;
export type RcmOptionsInput = z.input<typeof rcmOptionsSchema>;
export type AuxEndpoint = z.output<typeof auxEndpointSchema>;
export type AuxBudget = z.output<typeof auxBudgetSchema>;

/** The host-provider form of the auxModel option, or null (off, or an endpoint of its own). */
export function hostAuxOf(o: RcmOptions): { model?: string; timeoutMs?: number; stateUpdates?: boolean } | null {
  if (o.auxModel === "host") return {};
  if (typeof o.auxModel === "object" && "host" in o.auxModel) return o.auxModel;
  return null;
}

/** The endpoint form of the auxModel option, or null. */
export function endpointAuxOf(o: RcmOptions): AuxEndpoint | null {
  return typeof o.auxModel === "object" && "baseURL" in o.auxModel ? o.auxModel : null;
}

/** Parses options; problems are reported as one readable line each. */
export function parseRcmOptions(value: unknown): RcmOptions {
  const parsed = rcmOptionsSchema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  throw new Error(
    `switch-swe RCM options: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(options)"}: ${i.message}`).join("; ")}`,
  );
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
