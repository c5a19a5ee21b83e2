import { DelayedError, type Job } from "bullmq";
import type { Redis } from "ioredis";
import type { ZodType } from "zod";
import { packageVersion } from "../core/package-paths.js";
import { publishEvent } from "./events.js";
import type { SessionJob } from "./job-schema.js";
import type { QueueSecret } from "./queue-secret.js";

// One shape for every kind of job a worker takes (sessions, verifications, mining and qualification):
// admitted (admit-job.ts), parsed by its kind's schema, refused when this worker cannot run it faithfully,
// then handled by its kind's processor. A new kind is a JobHandler and a line in worker.ts.

/** What every job names so that a worker can refuse one it cannot run faithfully. */
export interface JobCommon {
  run_id: string;
  switch_swe_version: string;
}

/** One kind of job: its queue, its schema, and what a worker does with a job it accepted. */
export interface JobHandler<J extends JobCommon> {
  queue: string;
  /** Names the kind in the error of a malformed job. */
  what: string;
  schema: ZodType<J>;
  handle(raw: Job, job: J, token: string | undefined, c: ProcessorContext): Promise<string>;
}

/**
 * A job as admitJob authenticated it (`data`, never `raw.data`, which anyone with access to Redis may
 * have written): parsed, refused (handed back for another worker) or handled.
 */
export async function processJob<J extends JobCommon>(
  h: JobHandler<J>,
  raw: Job,
  data: unknown,
  token: string | undefined,
  c: ProcessorContext,
): Promise<string> {
  const parsed = h.schema.safeParse(data);
  if (!parsed.success) throw new Error(`malformed ${h.what} job: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  const job = parsed.data;
  const why = refusal(job);
  if (why !== null) return handBack(raw, token, why, c, job.run_id);
  return h.handle(raw, job, token, c);
}

export interface ProcessorContext {
  redis: Redis;
  worker: string;
  /** Where this worker keeps its private run directories. */
  workRoot: string;
  /** Aborted when the worker is stopping. */
  stopping: AbortSignal;
  log: (line: string) => void;
  /** Jobs whose lock this worker lost (another worker may run them now): their results are dropped. */
  lockLost: Set<string>;
  /** Per job: the controller that stops its attempt (lock lost, worker stopping). */
  running: Map<string, { controller: AbortController; job: SessionJob; since: string }>;
  /** Per job: the mining and qualification jobs running here (for `queue status`). */
  tasks: Map<string, { run: string; job: string; since: string }>;
  /** Called when `running` changed: `queue status` shows it at once, not at the next periodic heartbeat. */
  changed: () => void;
  /** Signs results and decrypts the dataset (never passed to an agent). */
  secret: QueueSecret;
}

/** Why this worker cannot run a job faithfully, or null. */
export function refusal(job: { switch_swe_version: string }): string | null {
  if (job.switch_swe_version !== packageVersion)
    return `the job needs switch-swe ${job.switch_swe_version}, this worker runs ${packageVersion}`;
  return null;
}

/** Puts a job back for another worker (a refusal is not an attempt). */
export async function handBack(job: Job, token: string | undefined, why: string, c: ProcessorContext, runId: string): Promise<never> {
  c.log(`refused job ${job.id}: ${why}`);
  publishEvent(c.redis, runId, {
    worker: c.worker,
    event: { type: "warning", time: new Date().toISOString(), message: `worker ${c.worker} refused a job: ${why}` },
  });
  await job.moveToDelayed(Date.now() + 10_000, token);
  throw new DelayedError();
}
