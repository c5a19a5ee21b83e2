import { z } from "zod";
import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

/** run.json `agent.harness`: what a real CLI agent said it is when the run started (the report's harness table). */
export const harnessInfoSchema = z
  .object({
    /** The harness (`claude-code`, `codex`, `gemini`, `opencode`). */
    name: z.string(),
    /** The npm package it comes from. */
    package: z.string().optional(),
    /** The exact version the CLI itself reports (`--version`), or null when it could not tell. */
    version: z.string().nullable(),
    /** The binary that ran. */
    binary: z.string().optional(),
    /** The model as the harness names it, or null for the harness's default. */
    model: z.string().nullable(),
    /** The reasoning-effort setting, or null for the harness's default. */
    effort: z.string().nullable(),
    /** Further settings that change what the agent does (e.g. OpenCode's context limit and where it comes from). */
    settings: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
  })
  .strict();

/**
 * run.json `limits.<resource>`: the limit as given (null: not limited), and whether it was enforced with how, or why not;
 * `per_worker` in a queued run: each worker enforces it on its own machine and warns in the session's trajectory when it cannot.
 */
const limitRecordSchema = z
  .object({ limit: z.string().nullable(), status: z.enum(["enforced", "not_enforced", "per_worker"]), detail: z.string() })
  .strict();

/** One measure of a sandbox's hardening: whether this machine applied it, and how or why not. */
const hardeningPartSchema = z.object({ applied: z.boolean(), detail: z.string() }).strict();

/** RUN_DIR/run.json: written once, before the first session starts, after every input was checked. */
export const runConfigSchema = z
  .object({
    format: z.literal("switch-swe.run/1"),
    created_at: z.string(),
    switch_swe_version: z.string(),
    /** `sha256`: the dataset digest (the sha256 of its pack, src/dataset/pack.ts); absent in runs started before it was recorded. */
    dataset: z.object({ path: z.string(), name: z.string(), version: z.string(), sha256: z.string().optional() }).strict(),
    sessions_file: z.object({ path: z.string(), sha256: z.string(), seed: z.number() }).strict(),
    agent: z.object({ name: z.string(), options: z.record(z.string(), z.string()), harness: harnessInfoSchema.optional() }).strict(),
    /** The configuration's name in reports. */
    label: z.string(),
    seed: z.number().int().nonnegative(),
    condition: z.enum(["base", "switch", "both"]),
    /** `--session` ids, or null for every session of the condition. */
    session_filter: z.array(z.string()).nullable(),
    /**
     * How each session's artifact is taken (`--submission`; absent in runs made before it was recorded: `checkout`):
     * `agent`, the patch the agent writes when asked at finalization; `checkout`, the diff of the focus checkout.
     */
    submission: z.enum(["agent", "checkout"]).optional(),
    /** The sessions of this run, in run order. */
    sessions_selected: z.array(z.string()),
    request_timeout_s: z.number().positive(),
    max_continuations: z.number().int().nonnegative(),
    max_infra_retries: z.number().int().nonnegative(),
    /** How the agent's processes were confined (`--sandbox`, `--network`), what was enforced and what could not be. */
    sandbox: z
      .object({
        /** The backend that confined the agent (src/confine/registry.ts: `bwrap`, `none`); checked against the registry when read. */
        mode: z.string().min(1),
        /** The backend of the verifier's test runs when it is not `mode` (an agent that cannot be confined: `none`, its artifacts verified under `bwrap`). */
        verifier: z.string().min(1).optional(),
        /** `model` (the default since egress allow-lists; runs before it recorded `on` or `none`): only `allowed_endpoints`. */
        network: z.enum(["model", "on", "none"]),
        /** With `network: model`: the only origins the agent's sandbox reaches (`http://127.0.0.1:8080`, `https://api.anthropic.com:443`). */
        allowed_endpoints: z.array(z.string()).optional(),
        enforced: z.array(z.string()),
        not_enforced: z.array(z.string()),
        /**
         * The python the agent finds inside its sandbox: `set-up`, each task's set-up environment (the verifier's);
         * `host`, the tasks declare none; `mixed`. Absent: unconfined, an agent acting from the harness side, or a run before it was recorded.
         */
        task_environment: z
          .object({ source: z.enum(["set-up", "host", "mixed"]), detail: z.string() })
          .strict()
          .optional(),
        /**
         * What every bubblewrap sandbox of the run (agent requests, verifier test runs) applied to shed the
         * caller's privileges, probed once when the run started (absent in runs made before it was recorded).
         * `host_user`: which host uid sandbox processes run as (not root; absent in runs before it was recorded).
         */
        hardening: z
          .object({
            host_user: hardeningPartSchema.optional(),
            user_namespace: hardeningPartSchema,
            capabilities: hardeningPartSchema,
            syscall_filter: hardeningPartSchema,
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    /**
     * `--rcm`: the RCM proxy stood between the agent and its model endpoint (`agent.options.base_url`, the
     * upstream) in this mode; absent: no proxy. `state` (`--rcm-state`; absent in runs before it:
     * extractive): the deterministic state updater, or the auxiliary model's items too.
     */
    rcm: z
      .object({ mode: z.enum(["off", "router", "rcm"]), state: z.enum(["extractive", "model"]).optional() })
      .strict()
      .optional(),
    /** Resource limits of each session's processes (`--limits`), and per resource whether they held, how, or why not. */
    limits: z
      .object({
        requested: z.string(),
        cpus: limitRecordSchema,
        memory: limitRecordSchema,
        pids: limitRecordSchema,
      })
      .strict()
      .optional(),
  })
  .strict();

export type RunConfig = z.infer<typeof runConfigSchema>;

/**
 * The same file as readers of older or foreign run directories must accept it: only the fields a report
 * needs, extra fields passed through, options of any shape (labels are derived with defaultLabel).
 */
export const runConfigReadSchema = z.looseObject({
  format: z.string().optional(),
  label: z.string().optional(),
  agent: z.looseObject({ name: z.string(), options: z.unknown().optional() }),
  dataset: z
    .looseObject({
      path: z.string().optional(),
      name: z.string().optional(),
      version: z.string().optional(),
      sha256: z.string().optional(),
    })
    .optional(),
  /** Required unless the caller names the sessions file (--sessions). */
  sessions_file: z.looseObject({ path: z.string(), sha256: z.string().optional() }).optional(),
  seed: z.number().optional(),
  /** Read for the failure categories: under `agent` a submission failure is measured (absent: checkout). */
  submission: z.string().optional(),
  /** Read for the report's line on an unconfined run. */
  sandbox: z.looseObject({ mode: z.string(), verifier: z.string().optional(), not_enforced: z.array(z.string()) }).optional(),
  /** Read by `verify`, which confines test runs under the run's limits unless told otherwise. */
  limits: z.looseObject({ requested: z.string() }).optional(),
  /** Read by `compare --native --rcm`, which refuses an RCM arm that ran without RCM (and a native one that ran with it). */
  rcm: z.looseObject({ mode: z.string() }).optional(),
});

export type RunConfigRead = z.infer<typeof runConfigReadSchema>;

/** Agent options as key=value strings, whatever shape an older run.json gave them. */
function optionPairs(options: unknown): string[] {
  if (Array.isArray(options)) return options.map(String);
  if (typeof options === "string") return options === "" ? [] : [options];
  if (!options || typeof options !== "object") return [];
  return Object.keys(options)
    .sort()
    .map((k) => {
      const v = (options as Record<string, unknown>)[k];
      return `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`;
    });
}

/** The default report label: the agent and its options sorted by name, `oracle` or `oracle forget=0.5`. */
export function defaultLabel(agent: { name: string; options?: unknown }): string {
  return [agent.name, ...optionPairs(agent.options)].join(" ");
}

/**
 * A path recorded in run.json: absolute as written (the run writes absolute paths); a relative path from
 * an older or hand-written file is relative to the run directory, else to the current directory.
 */
export function recordedPath(runDir: string, p: string): string {
  if (isAbsolute(p)) return p;
  const candidates = [join(runDir, p), resolve(p)];
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}
