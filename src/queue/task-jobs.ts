import { basename } from "node:path";
import type { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { connectChecked, openQueue } from "./connect.js";
import { acquireCoordinatorLock } from "./coordinator-lock.js";
import { readEvents } from "./events.js";
import { issueJob } from "./issue-job.js";
import { keys, taskJobId, taskQueue } from "./keys.js";
import type { SecuredQueue } from "./queue-secret.js";
import { decodeResult } from "./result-schema.js";
import type { TaskJob } from "./task-job-schema.js";
import { taskResultSchema, type TaskResult } from "./task-result-schema.js";

/** A job whose worker died, or that came back as an infrastructure fault, is tried this many times in all. */
const maxTries = 3;

const jobOptions = { removeOnComplete: true, removeOnFail: { age: 7 * 24 * 3600 } };

interface Pending {
  job: TaskJob;
  tries: number;
  resolve: (r: Exclude<TaskResult, { kind: "infra_fault" }>) => void;
  reject: (e: Error) => void;
}

export interface TaskJobsInfo {
  /** The directory whose state this coordinator owns (the mining run's --out, the dataset qualified). */
  dir: string;
  kind: "mine" | "qualify";
  label: string;
  jobs: number;
}

/**
 * The coordinator's side of mining and qualification jobs: each job is added once (a stable id per
 * try), and `run` resolves with the first result a worker stored for it. Unlike a session attempt, a
 * test job has no side effects and the same inputs give the same verdict, so a late result of an
 * earlier try (its worker hung, then came back) is as good as the current try's: no fence is needed,
 * the first stored result wins (SET NX).
 */
export class TaskJobs {
  private readonly pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | null = null;
  /** The tick under way (one at a time; `close` waits for it before it disconnects). */
  private current: Promise<void> | null = null;
  private lastEventId: string;
  private lastSlow = 0;
  private lastFullScan = 0;
  private lastSweep = Date.now();

  private constructor(
    private readonly redis: Redis,
    private readonly queue: Queue,
    private readonly target: SecuredQueue,
    readonly runId: string,
    private readonly lock: { renew: () => Promise<void>; release: () => Promise<void> },
    private readonly info: TaskJobsInfo,
    private readonly keepAlive: () => Promise<void>,
    private readonly onLine: (line: string) => void,
  ) {
    this.lastEventId = `${Date.now()}-0`;
  }

  /** Connects, claims the run (one coordinator per run id), and runs `keepAlive` (re-ship blobs) every few seconds. */
  static async open(
    target: SecuredQueue,
    runId: string,
    info: TaskJobsInfo,
    keepAlive: (redis: Redis) => Promise<void>,
    onLine: (line: string) => void,
  ): Promise<TaskJobs> {
    const redis = await connectChecked(target);
    try {
      const lock = await acquireCoordinatorLock(redis, runId, info.dir);
      await keepAlive(redis);
      const queue = await openQueue(taskQueue, target);
      const t = new TaskJobs(redis, queue, target, runId, lock, info, () => keepAlive(redis), onLine);
      await t.publishInfo();
      return t;
    } catch (e) {
      redis.disconnect();
      throw e;
    }
  }

  /** The job's result (a result already stored, by a worker of an earlier coordinator of this run, is taken). */
  async run(jobKey: string, job: TaskJob): Promise<Exclude<TaskResult, { kind: "infra_fault" }>> {
    const result = new Promise<Exclude<TaskResult, { kind: "infra_fault" }>>((resolve, reject) =>
      this.pending.set(jobKey, { job, tries: 1, resolve, reject }),
    );
    if ((await this.redis.exists(keys.taskResult(this.runId, jobKey))) === 1) this.lastFullScan = 0;
    else await issueJob(this.queue, this.target.secret, job.kind, job, { ...jobOptions, jobId: taskJobId(this.runId, jobKey, 1) });
    this.timer ??= setInterval(() => {
      this.current ??= this.tick().finally(() => (this.current = null));
    }, 300);
    return result;
  }

  /** Jobs no worker has started leave the queue; their `run` rejects (`--max` reached: left to a resumed run). */
  async withdraw(): Promise<void> {
    for (const [key, p] of [...this.pending]) {
      const job = await this.queue.getJob(taskJobId(this.runId, key, p.tries));
      if (!job || !["waiting", "delayed", "prioritized"].includes(await job.getState())) continue;
      // A worker may take it meanwhile (then it is locked and stays, and its result is awaited as usual).
      if (
        !(await job.remove().then(
          () => true,
          () => false,
        ))
      )
        continue;
      this.pending.delete(key);
      p.reject(new Error(`${key}: withdrawn before a worker started it`));
    }
  }

  /** Jobs no worker took yet leave the queue (a resumed run adds them again); running ones finish. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.current;
    try {
      for (const [key, p] of this.pending) {
        const job = await this.queue.getJob(taskJobId(this.runId, key, p.tries));
        if (job && ["waiting", "delayed", "prioritized"].includes(await job.getState())) await job.remove().catch(() => undefined);
      }
      await this.lock.release();
      await this.queue.close();
    } catch {
      // closing is best effort
    }
    this.redis.disconnect();
  }

  private async tick(): Promise<void> {
    try {
      for (const key of await this.stored()) await this.take(key);
      if (Date.now() - this.lastSlow > 2000) {
        this.lastSlow = Date.now();
        await this.lock.renew();
        await this.keepAlive();
        await this.publishInfo();
        await this.warnings();
        await this.checkFailed();
      }
      if (Date.now() - this.lastSweep > 15_000) {
        this.lastSweep = Date.now();
        await this.sweep();
      }
    } catch (e) {
      // Redis away for a while: the next tick tries again.
      this.onLine(`warning: queue: ${(e as Error).message}`);
    }
  }

  /** The pending jobs whose result is there: announced on the run's done list, and every 5 s all of them. */
  private async stored(): Promise<string[]> {
    const done = keys.done(this.runId);
    const [[, list]] = ((await this.redis.multi().lrange(done, 0, -1).del(done).exec()) ?? [[null, []]]) as [[unknown, string[]]];
    let found = list.filter((k) => this.pending.has(k));
    if (Date.now() - this.lastFullScan > 5000) {
      this.lastFullScan = Date.now();
      const all = [...this.pending.keys()];
      const pipe = this.redis.pipeline();
      for (const k of all) pipe.exists(keys.taskResult(this.runId, k));
      const exists = (await pipe.exec()) ?? [];
      found = all.filter((_, i) => exists[i]?.[1] === 1);
    }
    return [...new Set(found)];
  }

  private async take(jobKey: string): Promise<void> {
    const p = this.pending.get(jobKey);
    if (!p) return;
    const key = keys.taskResult(this.runId, jobKey);
    const data = await this.redis.getBuffer(key);
    if (data === null) return;
    let r: TaskResult;
    try {
      r = decodeResult(data, taskResultSchema, this.target.secret, key);
    } catch (e) {
      r = { format: "switch-swe.queue-task-result/1", kind: "infra_fault", worker: "?", detail: (e as Error).message };
    }
    // Taken or refused, the key is cleared: the next try can store its own result.
    await this.redis.del(key);
    if (r.kind === "infra_fault") return this.retry(jobKey, p, `${r.worker}: ${r.detail}`);
    this.pending.delete(jobKey);
    p.resolve(r);
  }

  /** Try N+1 of a job (after a failed try), or the job's end with the last reason. */
  private async retry(jobKey: string, p: Pending, why: string): Promise<void> {
    if (p.tries >= maxTries) {
      this.pending.delete(jobKey);
      p.reject(
        new Error(
          `${p.job.kind === "mine" ? `candidate ${p.job.candidate}` : `task ${p.job.task}`}: its test job failed ${p.tries} time(s) on the queue's workers; the last: ${why}`,
        ),
      );
      return;
    }
    this.onLine(
      `warning: ${p.job.kind === "mine" ? p.job.candidate : p.job.task}: try ${p.tries} failed (${why.split("\n")[0]}); tried again`,
    );
    p.tries++;
    await issueJob(this.queue, this.target.secret, p.job.kind, p.job, { ...jobOptions, jobId: taskJobId(this.runId, jobKey, p.tries) });
  }

  /** Jobs whose worker died or hung (BullMQ's stalled check failed them), or whose processor threw: one query. */
  private async checkFailed(): Promise<void> {
    const failed = await this.queue.getJobs(["failed"]);
    const byId = new Map(failed.map((j) => [j.id, j]));
    for (const [key, p] of [...this.pending]) {
      const job = byId.get(taskJobId(this.runId, key, p.tries));
      if (!job) continue;
      // A result stored just before the job failed is taken as usual at the next tick.
      if ((await this.redis.exists(keys.taskResult(this.runId, key))) === 1) continue;
      await this.retry(key, p, `${job.processedBy ?? "a worker"} stopped renewing its lock or failed: ${job.failedReason ?? "failed"}`);
    }
  }

  /** Jobs the queue no longer holds (never added, or lost by a Redis restart), or ended without a result. */
  private async sweep(): Promise<void> {
    for (const [key, p] of [...this.pending]) {
      const id = taskJobId(this.runId, key, p.tries);
      const state = await this.queue.getJobState(id);
      if (state !== "unknown" && state !== "completed") continue;
      if ((await this.redis.exists(keys.taskResult(this.runId, key))) === 1) continue;
      await issueJob(this.queue, this.target.secret, p.job.kind, p.job, { ...jobOptions, jobId: id });
    }
  }

  /** A worker's refusal (another switch-swe version) is said here, as `run --queue` says it. */
  private async warnings(): Promise<void> {
    const { events, lastId } = await readEvents(this.redis, this.runId, this.lastEventId);
    this.lastEventId = lastId;
    for (const e of events) if (e.event.type === "warning") this.onLine(`warning: ${e.event.message}`);
  }

  private async publishInfo(): Promise<void> {
    const info = {
      run_dir: basename(this.info.dir),
      label: this.info.label,
      kind: this.info.kind,
      sessions: this.info.jobs,
      time: new Date().toISOString(),
    };
    await this.redis.hset(keys.runs(), this.runId, JSON.stringify(info));
  }
}
