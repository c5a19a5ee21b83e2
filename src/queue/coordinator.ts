import { basename } from "node:path";
import type { Queue } from "bullmq";
import { Redis } from "ioredis";
import { packageVersion } from "../core/package-paths.js";
import { nowIso } from "../run/progress-events.js";
import type { BackendRun, RunOutcome, SessionBackend } from "../run/session-backend.js";
import { writeSummary } from "../run/write-summary.js";
import { attemptWorkDir } from "../run/session-dir.js";
import type { SelectedSession } from "../run/session-selection.js";
import { connectChecked, openQueue } from "./connect.js";
import { acquireCoordinatorLock } from "./coordinator-lock.js";
import { jobDataset, prepareShipment, ship, type Shipment } from "./dataset-shipment.js";
import { readEvents, type WorkerEvent } from "./events.js";
import { fenceAttempt, isTombstone } from "./attempt-fence.js";
import { attemptOpen, ingestSessionResult, lostAttemptSummary, recordLostAttempt } from "./ingest.js";
import type { SessionJob } from "./job-schema.js";
import { keys, sessionJobId, sessionQueue } from "./keys.js";
import { issueJob } from "./issue-job.js";
import { openQueueRun } from "./queue-run-file.js";
import type { SecuredQueue } from "./queue-secret.js";
import { decodeResult, sessionResultSchema, type SessionResult } from "./result-schema.js";
import { verifyThroughQueue } from "./verify-coordinator.js";
import { queuedLimits } from "../confine/limits-record.js";
import { agentConfinementJob } from "../confine/confinement.js";

interface Tracked {
  job: SessionJob;
  /** Infrastructure faults of this session in this invocation (retried at most max_infra_retries times). */
  faults: number;
}

const jobOptions = { removeOnComplete: true, removeOnFail: { age: 7 * 24 * 3600 } };

/**
 * `run --queue`: this process stays the run's only writer (run directory, ledger) and enqueues one
 * job per session attempt; workers run them and store each result under its own key, which this
 * process ingests. A result is written to the run directory once: the ledger says which attempt is open.
 */
export class QueueCoordinator implements SessionBackend {
  private redis: Redis | null = null;
  private queue: Queue | null = null;
  private runId = "";
  private shipment: Shipment | null = null;
  private lock: { renew: () => Promise<void>; release: () => Promise<void> } | null = null;
  private readonly tracked = new Map<string, Tracked>();
  private lastEventId = "0";
  private lastSlowTick = 0;
  private lastSweep = 0;
  private lastFullScan = 0;

  constructor(private readonly target: SecuredQueue) {}

  get id(): string {
    return this.runId;
  }

  async recover(run: BackendRun): Promise<void> {
    this.redis = await connectChecked(this.target);
    const { run: qr, created } = openQueueRun(run.runDir, this.target.display);
    this.runId = qr.run_id;
    this.lock = await acquireCoordinatorLock(this.redis, this.runId, run.runDir);
    this.shipment = await prepareShipment(run.dataset);
    await ship(this.redis, this.shipment, this.target.secret);
    this.queue = await openQueue(sessionQueue, this.target);
    this.lastEventId = `${Date.now()}-0`;
    // A run started locally and continued on a queue: its cut-off local attempts are just interrupted.
    if (created) run.ledger.markInterrupted("cut off: the run process ended while this attempt ran");
    await this.publishInfo(run);
  }

  async run(todo: SelectedSession[], run: BackendRun, outcome: RunOutcome): Promise<void> {
    // Longest sessions (most requests) first: the queue is FIFO, so the last to start are the short ones
    // and the fleet does not wait at the end for a long session that started last.
    const longestFirst = [...todo].sort((a, b) => b.pair.schedules[b.condition].length - a.pair.schedules[a.condition].length);
    for (const s of longestFirst) {
      const open = run.ledger.attempts(s.session).find((r) => r.status === "running");
      if (open) this.tracked.set(s.session, { job: this.jobFor(s, open.attempt, run), faults: 0 });
      else await this.startAttempt(s, run, 0);
    }
    while (this.tracked.size > 0 && !run.signal.aborted) {
      await this.tick(run, outcome, todo);
      await sleepUnlessAborted(300, run.signal);
    }
    if (run.signal.aborted) await this.withdrawWaiting();
    // Every session ended: the progress stream of the run has nothing more to say.
    else await this.redis!.del(keys.events(this.runId), keys.done(this.runId));
  }

  async verify(run: BackendRun, sessions: readonly string[]): Promise<string[]> {
    if (!this.redis || !this.shipment) return [];
    return verifyThroughQueue({
      run,
      sessions,
      redis: this.redis,
      target: this.target,
      runId: this.runId,
      shipment: this.shipment,
      renew: () => this.slowTick(run),
    });
  }

  async close(): Promise<void> {
    try {
      await this.lock?.release();
      await this.queue?.close();
    } catch {
      // closing is best effort
    }
    this.redis?.disconnect();
  }

  private jobFor(s: SelectedSession, attempt: number, run: BackendRun): SessionJob {
    const c = run.config;
    return {
      kind: "session",
      run_id: this.runId,
      switch_swe_version: packageVersion,
      dataset: jobDataset(run.dataset, this.shipment!),
      run_created_at: c.created_at,
      session: s.session,
      attempt,
      pair: s.pair,
      condition: s.condition,
      agent: { name: c.agent.name, options: c.agent.options, harness_version: c.agent.harness?.version ?? null },
      seed: c.seed,
      request_timeout_s: c.request_timeout_s,
      max_continuations: c.max_continuations,
      sandbox: agentConfinementJob(run.confinement.agent),
      limits: queuedLimits(c.limits),
      submission: c.submission ?? "checkout",
    };
  }

  /** Ledger first, then the job: a crash in between leaves an open attempt whose job is added on resume. */
  private async startAttempt(s: SelectedSession, run: BackendRun, faults: number): Promise<void> {
    const attempt = run.ledger.begin(s.session, (n) => attemptWorkDir(run.runDir, run.config.created_at, s.session, n));
    const job = this.jobFor(s, attempt, run);
    this.tracked.set(s.session, { job, faults });
    await issueJob(this.queue!, this.target.secret, "session", job, { ...jobOptions, jobId: sessionJobId(this.runId, s.session, attempt) });
  }

  private async tick(run: BackendRun, outcome: RunOutcome, todo: SelectedSession[]): Promise<void> {
    const redis = this.redis!;
    const { events, lastId } = await readEvents(redis, this.runId, this.lastEventId);
    this.lastEventId = lastId;
    for (const e of events) if (this.shows(e)) run.progress(e.event);
    for (const [session, t] of await this.announced()) {
      const data = await redis.getBuffer(keys.result(this.runId, session, t.job.attempt));
      if (data === null) continue;
      // Fenced by an earlier coordinator that was killed before it wrote the ledger: lost, as it decided.
      if (isTombstone(data)) {
        await this.settleLost(
          t,
          "its worker stopped renewing its lock (the attempt was given up before the coordinator restarted)",
          run,
          outcome,
          todo,
        );
        continue;
      }
      await this.settle(t, this.decode(data, t), run, outcome, todo);
    }
    if (Date.now() - this.lastSlowTick > 2000) {
      await this.slowTick(run);
      await this.checkFailed(run, outcome, todo);
    }
    if (Date.now() - this.lastSweep > 15_000) {
      this.lastSweep = Date.now();
      await this.checkJobs(run, outcome, todo);
    }
  }

  /**
   * The tracked attempts whose result is there: the ones workers announced since the last tick (the run's
   * done list, drained at once), and every few seconds all of them (an announcement may have been lost
   * with a Redis restart). Cost per tick: one round trip, not one per session.
   */
  private async announced(): Promise<Array<[string, Tracked]>> {
    const redis = this.redis!;
    const done = keys.done(this.runId);
    const [[, list]] = ((await redis.multi().lrange(done, 0, -1).del(done).exec()) ?? [[null, []]]) as [[unknown, string[]]];
    const named = new Set(list);
    let entries = [...this.tracked.entries()].filter(([session, t]) => named.has(`${session} ${t.job.attempt}`));
    if (Date.now() - this.lastFullScan > 5000) {
      this.lastFullScan = Date.now();
      const all = [...this.tracked.entries()];
      const pipe = redis.pipeline();
      for (const [session, t] of all) pipe.exists(keys.result(this.runId, session, t.job.attempt));
      const exists = (await pipe.exec()) ?? [];
      entries = all.filter((_, i) => exists[i]?.[1] === 1);
    }
    return entries;
  }

  /** Keeps the run's claims alive: the coordinator lock, the dataset's blobs (Redis may have restarted empty). */
  private async slowTick(run: BackendRun): Promise<void> {
    this.lastSlowTick = Date.now();
    await this.lock!.renew();
    await ship(this.redis!, this.shipment!, this.target.secret);
    await this.publishInfo(run);
  }

  /** Jobs of this run that failed (their worker died or hung: BullMQ's stalled check failed them): one query. */
  private async checkFailed(run: BackendRun, outcome: RunOutcome, todo: SelectedSession[]): Promise<void> {
    const failed = await this.queue!.getJobs(["failed"]);
    const ids = new Set(failed.map((j) => j.id));
    for (const [session, t] of [...this.tracked.entries()]) {
      const id = sessionJobId(this.runId, session, t.job.attempt);
      if (!ids.has(id)) continue;
      const job = failed.find((j) => j.id === id)!;
      await this.settleLost(
        t,
        `${job.processedBy ?? "a worker"} stopped renewing its lock or failed: ${job.failedReason ?? "failed"}`,
        run,
        outcome,
        todo,
      );
      await job.remove().catch(() => undefined);
    }
  }

  /** Jobs that ended without a result (their worker died or hung), and jobs the queue no longer holds. */
  private async checkJobs(run: BackendRun, outcome: RunOutcome, todo: SelectedSession[]): Promise<void> {
    for (const [session, t] of [...this.tracked.entries()]) {
      const id = sessionJobId(this.runId, session, t.job.attempt);
      const state = await this.queue!.getJobState(id);
      if (state === "failed" || state === "completed") {
        const job = await this.queue!.getJob(id);
        const who = job?.processedBy ?? "a worker";
        const why = state === "failed" ? (job?.failedReason ?? "failed") : "completed without a result";
        await this.settleLost(t, `${who} stopped renewing its lock or failed: ${why}`, run, outcome, todo);
        await job?.remove().catch(() => undefined);
      } else if (state === "unknown") {
        // Never added (a crash right after the ledger), or lost by Redis: the same attempt, added again.
        await issueJob(this.queue!, this.target.secret, "session", t.job, { ...jobOptions, jobId: id });
      }
    }
  }

  private async settle(t: Tracked, r: SessionResult, run: BackendRun, outcome: RunOutcome, todo: SelectedSession[]): Promise<void> {
    const { session, attempt } = t.job;
    if (attemptOpen(run.ledger, session, attempt)) {
      ingestSessionResult(run.runDir, run.ledger, r);
      await this.next(t, r.outcome, r.detail, r.summary, run, outcome, todo);
    }
    await this.forget(session, attempt);
  }

  /**
   * An attempt whose job ended without a result: fenced off first (a worker that comes back later can no
   * longer store a result for it), unless its result arrived just before, which is then taken as usual.
   */
  private async settleLost(t: Tracked, detail: string, run: BackendRun, outcome: RunOutcome, todo: SelectedSession[]): Promise<void> {
    const { session, attempt } = t.job;
    const late = await fenceAttempt(this.redis!, keys.result(this.runId, session, attempt));
    if (late !== null) return this.settle(t, this.decode(late, t), run, outcome, todo);
    const trajectory = await this.redis!.getBuffer(keys.trajectory(this.runId, session, attempt));
    recordLostAttempt(run.runDir, run.ledger, session, attempt, trajectory, detail);
    await this.next(t, "infra_fault", detail, null, run, outcome, todo);
    // The tombstone stays (until it expires): it is what keeps a late result out.
    await this.redis!.del(keys.trajectory(this.runId, session, attempt));
  }

  private decode(data: Buffer, t: Tracked): SessionResult {
    try {
      return decodeResult(data, sessionResultSchema, this.target.secret, keys.result(this.runId, t.job.session, t.job.attempt));
    } catch (e) {
      return {
        format: "switch-swe.queue-result/1",
        session: t.job.session,
        attempt: t.job.attempt,
        worker: "?",
        outcome: "infra_fault",
        detail: (e as Error).message,
        summary: null,
        files: [],
      };
    }
  }

  /** Progress of the attempts this coordinator waits for; a fenced-off attempt's late events are not shown. */
  private shows(e: WorkerEvent): boolean {
    if (e.event.type === "session_end" || e.event.type === "run_start" || e.event.type === "run_end") return false;
    if (e.session === undefined || e.attempt === undefined) return true;
    return this.tracked.get(e.session)?.job.attempt === e.attempt;
  }

  /** After an attempt ended: done, or the next attempt (as a local run decides). */
  private async next(
    t: Tracked,
    status: SessionResult["outcome"],
    detail: string | null,
    summary: SessionResult["summary"],
    run: BackendRun,
    outcome: RunOutcome,
    todo: SelectedSession[],
  ): Promise<void> {
    const { session, attempt } = t.job;
    const s = todo.find((x) => x.session === session)!;
    this.tracked.delete(session);
    const faults = t.faults + (status === "infra_fault" ? 1 : 0);
    const retry = (status === "infra_fault" && faults <= run.config.max_infra_retries) || status === "interrupted";
    run.progress({
      type: "session_end",
      time: nowIso(),
      session,
      attempt,
      status,
      ...(status === "infra_fault" ? { retry } : {}),
      ...(detail ? { detail } : {}),
    });
    if (status === "finished") outcome.finished.push(session);
    else if (retry && !run.signal.aborted) await this.startAttempt(s, run, faults);
    else if (!run.signal.aborted || status !== "interrupted") {
      writeSummary(run.runDir, summary ?? lostAttemptSummary(t.job, `${status}: ${detail ?? ""}`), run.ledger, null);
      outcome.failed.push(session);
    }
  }

  private async forget(session: string, attempt: number): Promise<void> {
    await this.redis!.del(keys.result(this.runId, session, attempt), keys.trajectory(this.runId, session, attempt));
  }

  /** Ctrl-C: jobs no worker took yet leave the queue; running ones finish and `--resume` collects them. */
  private async withdrawWaiting(): Promise<void> {
    for (const [session, t] of this.tracked) {
      const job = await this.queue!.getJob(sessionJobId(this.runId, session, t.job.attempt));
      if (job && ["waiting", "delayed", "prioritized"].includes(await job.getState())) await job.remove().catch(() => undefined);
    }
  }

  private async publishInfo(run: BackendRun): Promise<void> {
    const info = { run_dir: basename(run.runDir), label: run.config.label, sessions: run.config.sessions_selected.length, time: nowIso() };
    await this.redis!.hset(keys.runs(), this.runId, JSON.stringify(info));
  }
}

function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}
