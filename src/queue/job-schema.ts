import { z } from "zod";
import { conditionSchema, sessionPairSchema } from "../formats/sessions.js";

/** What every job names so that a worker can refuse one it cannot run faithfully. */
const jobCommon = {
  run_id: z.string().regex(/^[0-9a-f]{16}$/),
  switch_swe_version: z.string().min(1),
  dataset: z
    .object({
      name: z.string(),
      version: z.string(),
      digest: z.string().regex(/^[0-9a-f]{64}$/),
      /** Bundles of the repositories that live outside the dataset directory: name -> digest. */
      repos: z.record(z.string().min(1), z.string().regex(/^[0-9a-f]{64}$/)).optional(),
    })
    .strict(),
};

/**
 * One attempt of one session, as the coordinator enqueues it. It carries no credentials: agent options
 * are the run's (`--agent-opt`), and workers take API keys from their own environment.
 */
export const sessionJobSchema = z
  .object({
    kind: z.literal("session"),
    ...jobCommon,
    run_created_at: z.string(),
    session: z.string().min(1),
    attempt: z.number().int().positive(),
    pair: sessionPairSchema,
    condition: conditionSchema,
    /**
     * `harness_version`: the agent CLI's version in the coordinator's run.json (null: not a CLI agent, or
     * the CLI could not tell); a worker whose own CLI says another version refuses the job.
     */
    agent: z
      .object({ name: z.string().min(1), options: z.record(z.string(), z.string()), harness_version: z.string().nullable() })
      .strict(),
    seed: z.number().int().nonnegative(),
    request_timeout_s: z.number().positive(),
    max_continuations: z.number().int().nonnegative(),
    /** The agent's confinement as run.json records it (null: none; `mode` absent: the default backend), applied by the worker as a local run would. */
    sandbox: z
      .object({ mode: z.string().min(1).optional(), network: z.boolean(), allowed_endpoints: z.array(z.string()).optional() })
      .strict()
      .nullable(),
    /** `--limits` as asked (null: none); the worker enforces what its own machine can and warns of the rest. */
    limits: z.string().nullable(),
    /** `--submission` as run.json records it (absent: checkout, as coordinators before it sent). */
    submission: z.enum(["agent", "checkout"]).optional(),
  })
  .strict();

/** One verification of one artifact (null: the session left none). */
export const verifyJobSchema = z
  .object({
    kind: z.literal("verify"),
    ...jobCommon,
    session: z.string().min(1),
    task: z.string().min(1),
    artifact_sha256: z.string(),
    artifact_b64: z.string().nullable(),
    /** The test runs' confinement backend (its mode) and `--limits` ("none": none), applied by the worker as a local verify would. */
    sandbox: z.string().min(1),
    limits: z.string(),
  })
  .strict();

export type SessionJob = z.infer<typeof sessionJobSchema>;
export type VerifyJob = z.infer<typeof verifyJobSchema>;
