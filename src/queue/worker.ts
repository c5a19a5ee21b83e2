import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { Worker, type Job } from "bullmq";
import { admitJob } from "./admit-job.js";
import type { ConfinementFloor } from "./confinement-floor.js";
import { Redis } from "ioredis";
import { cacheRoot } from "../dataset/repo-cache.js";
import { packageVersion } from "../core/package-paths.js";
import { keys } from "./keys.js";
import type { SecuredQueue } from "./queue-secret.js";
import { processJob, type JobCommon, type JobHandler, type ProcessorContext } from "./job-handler.js";
import { sessionJobs } from "./session-processor.js";
import { verifyJobs } from "./verify-processor.js";
import { taskJobs } from "./task-processor.js";
import { newWorkerName } from "./worker-identity.js";

export interface WorkerOptions {
  target: SecuredQueue;
  /** Jobs at once of each kind: sessions, verifications, mining and qualification jobs (each kind its own slots). */
  concurrency: number;
  /** Seconds without lock renewal after which a job counts as stalled (its worker died or hung). */
  stallTimeoutS: number;
  /** Where session work directories live (default: the cache's queue/work). */
  workRoot?: string;
  log: (line: string) => void;
  /** What jobs may ask for beyond the default confinement (`--allow-unconfined`, `--allow-network`). */
  floor: ConfinementFloor;
  /** Aborted to stop the worker: running attempts end as interrupted and go back to the queue. */
  signal: AbortSignal;
}

function heartbeat(redis: Redis, name: string, o: WorkerOptions, c: ProcessorContext): Promise<unknown> {
  const running = [
    ...[...c.running.values()].map((r) => ({ run: r.job.run_id, session: r.job.session, attempt: r.job.attempt, since: r.since })),
    ...[...c.tasks.values()].map((t) => ({ run: t.run, job: t.job, since: t.since })),
  ];
  const beat = {
    host: hostname(),
    pid: process.pid,
    version: packageVersion,
    concurrency: o.concurrency,
    running,
    time: new Date().toISOString(),
  };
  return redis.hset(keys.workers(), name, JSON.stringify(beat)).catch(() => undefined);
}

/**
 * `switch-swe worker`: takes session, verification, mining and qualification jobs from the queue until stopped. A dead or
 * hung worker is found by BullMQ's stalled-job check (its lock is no longer renewed); the job then
 * fails, and the coordinator records an infrastructure fault and starts the next attempt elsewhere.
 */
export async function runWorker(o: WorkerOptions): Promise<void> {
  const name = newWorkerName();
  const redis = new Redis({ ...o.target.redis, lazyConnect: false });
  redis.on("error", () => undefined);
  const workRoot = o.workRoot ?? join(cacheRoot(), "queue", "work");
  mkdirSync(workRoot, { recursive: true });
  const ctx: ProcessorContext = {
    redis,
    worker: name,
    workRoot,
    stopping: o.signal,
    log: o.log,
    lockLost: new Set(),
    running: new Map(),
    tasks: new Map(),
    changed: () => void heartbeat(redis, name, o, ctx),
    secret: o.target.secret,
  };
  const lockMs = Math.round(o.stallTimeoutS * 1000);
  const common = {
    connection: o.target.redis,
    name,
    concurrency: o.concurrency,
    lockDuration: lockMs,
    stalledInterval: lockMs,
    maxStalledCount: 0,
  };
  // Nothing of a job is looked at before it is admitted: signed by the coordinator, within the floor.
  const admit = (queue: string, job: Job) => admitJob(queue, job, { secret: o.target.secret, floor: o.floor, worker: name, log: o.log });
  const workerOf = <J extends JobCommon>(h: JobHandler<J>) =>
    new Worker(h.queue, async (job: Job, token?: string) => processJob(h, job, admit(h.queue, job), token, ctx), common);
  // Each kind of job its own slots (sessions, verifications, mining and qualification).
  const workers = [workerOf(sessionJobs), workerOf(verifyJobs), workerOf(taskJobs)];
  for (const w of workers) {
    w.on("error", (e) => o.log(`queue error: ${e.message}`));
    w.on("lockRenewalFailed", (ids: string[]) => {
      for (const id of ids) {
        ctx.lockLost.add(id);
        ctx.running.get(id)?.controller.abort();
        o.log(`lost the lock of job ${id}: its attempt is stopped and will run elsewhere`);
      }
    });
  }
  o.log(`worker ${name} (switch-swe ${packageVersion}) on ${o.target.display}, concurrency ${o.concurrency}`);
  if (o.floor.unconfined)
    o.log("--allow-unconfined: jobs that ask for no sandbox run their agents and tests as this worker's user, outside any sandbox");
  if (o.floor.network)
    o.log("--allow-network: jobs that ask for it give their agents this machine's network (this queue's Redis included)");
  await heartbeat(redis, name, o, ctx);
  const beat = setInterval(() => void heartbeat(redis, name, o, ctx), 5000);
  try {
    await new Promise<void>((resolve) => {
      if (o.signal.aborted) resolve();
      o.signal.addEventListener("abort", () => resolve());
    });
    o.log("stopping: running attempts end as interrupted and go back to the queue");
    await Promise.all(workers.map((w) => w.close()));
  } finally {
    clearInterval(beat);
    await redis.hdel(keys.workers(), name).catch(() => undefined);
    redis.disconnect();
  }
}
