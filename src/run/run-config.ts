import { z } from "zod";
import { inputError } from "../core/errors.js";

/** RUN_DIR/run.json: written once, before the first session starts, after every input was checked. */
export const runConfigSchema = z
  .object({
    format: z.literal("switch-swe.run/1"),
    created_at: z.string(),
    switch_swe_version: z.string(),
    dataset: z.object({ path: z.string(), name: z.string(), version: z.string() }).strict(),
    sessions_file: z.object({ path: z.string(), sha256: z.string(), seed: z.number() }).strict(),
    agent: z
      .object({
        name: z.string(),
        options: z.record(z.string(), z.string()),
        /** What the harness said it is when the run started (real CLI agents): the report's harness table. */
        harness: z
          .object({
            name: z.string(),
            package: z.string().optional(),
            version: z.string().nullable(),
            binary: z.string().optional(),
            model: z.string().nullable(),
            effort: z.string().nullable(),
            settings: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
          })
          .strict()
          .optional(),
      })
      .strict(),
    /** The configuration's name in reports. */
    label: z.string(),
    seed: z.number().int().nonnegative(),
    condition: z.enum(["base", "switch", "both"]),
    /** `--session` ids, or null for every session of the condition. */
    session_filter: z.array(z.string()).nullable(),
    /** The sessions of this run, in run order. */
    sessions_selected: z.array(z.string()),
    request_timeout_s: z.number().positive(),
    max_continuations: z.number().int().nonnegative(),
    max_infra_retries: z.number().int().nonnegative(),
  })
  .strict();

export type RunConfig = z.infer<typeof runConfigSchema>;

/** The default report label: the agent and its options, `oracle` or `oracle forget=0.5`. */
export function defaultLabel(agent: string, options: Record<string, string>): string {
  const opts = Object.keys(options)
    .sort()
    .map((k) => `${k}=${options[k]}`);
  return [agent, ...opts].join(" ");
}

const stable = (v: unknown) => JSON.stringify(v, (_, x: unknown) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort()) : x));

/**
 * On --resume the new command must describe the same run: everything that changes what a session does
 * or how it is reported must be equal. The first difference is bad input naming the field.
 */
export function assertSameRun(file: string, existing: RunConfig, wanted: RunConfig): void {
  const fields: Array<[string, string, unknown, unknown]> = [
    ["dataset", "--dataset", `${existing.dataset.name}@${existing.dataset.version}`, `${wanted.dataset.name}@${wanted.dataset.version}`],
    ["sessions_file.sha256", "--sessions", existing.sessions_file.sha256, wanted.sessions_file.sha256],
    ["agent.name", "--agent", existing.agent.name, wanted.agent.name],
    ["agent.options", "--agent-opt", existing.agent.options, wanted.agent.options],
    ["seed", "--seed", existing.seed, wanted.seed],
    ["label", "--label", existing.label, wanted.label],
    ["condition", "--condition", existing.condition, wanted.condition],
    ["session_filter", "--session", existing.session_filter, wanted.session_filter],
    ["request_timeout_s", "--request-timeout", existing.request_timeout_s, wanted.request_timeout_s],
  ];
  for (const [field, flag, a, b] of fields) {
    if (stable(a) !== stable(b)) {
      throw inputError(file, field, `the run was started with ${stable(a)}, ${flag} now gives ${stable(b)}: resume with the same options or use a new --out`);
    }
  }
}
