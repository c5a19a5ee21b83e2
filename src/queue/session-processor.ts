import { join } from "node:path";
import type { Job } from "bullmq";
import { createAgent } from "../agents/registry.js";
import type { Agent } from "../agents/types.js";
import { InfraFault } from "../core/infra-fault.js";
import { sessionJobSchema, type SessionJob } from "./job-schema.js";
import { keys, resultTtlS, sessionQueue } from "./keys.js";
import { handBack, type JobHandler, type ProcessorContext } from "./job-handler.js";
import { storeResult } from "./attempt-fence.js";
import { publishEvent } from "./events.js";
import { encodeResult, type SessionResult } from "./result-schema.js";
import { runSessionJob } from "./run-session-job.js";
import { TrajectoryMirror } from "./trajectory-mirror.js";
import { workerDataset } from "./worker-dataset.js";
import { runFiles } from "../formats/run-layout.js";

const agents = new Map<string, Agent>();
function agentFor(job: SessionJob): Agent {
  const key = JSON.stringify([job.agent.name, job.agent.options]);
  let a = agents.get(key);
  if (!a) {
    a = createAgent(job.agent.name, job.agent.options);
    agents.set(key, a);
  }
  return a;
}

/** This worker's version of each agent CLI, asked once (`--version`). */
const versions = new Map<Agent, Promise<string | null>>();

/**
 * Why this worker's agent CLI cannot run the job as the run recorded it, or null: a session run by
 * another version of the CLI than the one run.json names would mix two agents in one configuration.
 * Unknown on either side (not a CLI agent, or a CLI that does not say) is no reason to refuse.
 */
export async function agentVersionRefusal(job: SessionJob, agent: Agent, worker: string): Promise<string | null> {
  const wanted = job.agent.harness_version;
  if (wanted === null || !agent.describe) return null;
  let mine = versions.get(agent);
  if (!mine) {
    mine = agent.describe().then(
      (h) => h.version,
      () => null,
    );
    versions.set(agent, mine);
  }
  const have = await mine;
  if (have === null || have === wanted) return null;
  return `refused by worker ${worker}: its ${job.agent.name} CLI is version ${have}, the run's run.json records ${wanted}`;
}

/** Session jobs: one attempt, its result stored once under its own key. */
export const sessionJobs: JobHandler<SessionJob> = {
  queue: sessionQueue,
  what: "session",
  schema: sessionJobSchema,
  handle: processSessionJob,
};

async function processSessionJob(raw: Job, job: SessionJob, token: string | undefined, c: ProcessorContext): Promise<string> {
  // A worker that hung past the stall timeout and came back may still run the attempt it was given up
  // for (until it sees the fence): it must not take the next attempt of that session beside it, in the
  // same session directory. Handed back: another worker, or this one once the old attempt stopped.
  const own = [...c.running.values()].find((r) => r.job.run_id === job.run_id && r.job.session === job.session);
  if (own)
    return handBack(
      raw,
      token,
      `attempt ${own.job.attempt} of ${job.session} still runs on this worker (it was given up while the worker hung); attempt ${job.attempt} waits for another worker or for its end`,
      c,
      job.run_id,
    );
  const resultKey = keys.result(job.run_id, job.session, job.attempt);
  if ((await c.redis.exists(resultKey)) === 1) return "already done";
  const id = String(raw.id);
  const controller = new AbortController();
  const onStop = () => controller.abort();
  c.stopping.addEventListener("abort", onStop);
  c.running.set(id, { controller, job, since: new Date().toISOString() });
  c.changed();
  const shadowRunDir = join(c.workRoot, job.run_id);
  // A coordinator that gave this attempt up (lock lost while this worker hung) fences it: stop at once.
  const fenced = () => {
    c.lockLost.add(id);
    controller.abort();
  };
  const mirror = new TrajectoryMirror(
    c.redis,
    runFiles.trajectory(shadowRunDir, job.session),
    keys.trajectory(job.run_id, job.session, job.attempt),
    resultKey,
    fenced,
  );
  c.log(`start ${job.session} attempt ${job.attempt} (run ${job.run_id})`);
  try {
    const result = await attemptResult(job, c, controller.signal, shadowRunDir, mirror);
    await mirror.stop();
    if (c.lockLost.has(id)) {
      c.log(`dropped the result of ${job.session} attempt ${job.attempt} (run ${job.run_id}): this worker lost the job's lock`);
      return "lock lost";
    }
    if (!(await storeResult(c.redis, resultKey, encodeResult(result, c.secret, resultKey)))) {
      c.log(
        `dropped the result of ${job.session} attempt ${job.attempt} (run ${job.run_id}): the coordinator had given this attempt up (or it has a result already)`,
      );
      return "fenced";
    }
    // Tells the coordinator which result to read (it need not look at every running attempt's key).
    await c.redis.multi().rpush(keys.done(job.run_id), `${job.session} ${job.attempt}`).expire(keys.done(job.run_id), resultTtlS).exec();
    c.log(
      `end ${job.session} attempt ${job.attempt} (run ${job.run_id}): ${result.outcome}${result.detail ? ` (${result.detail.split("\n")[0]})` : ""}`,
    );
    return result.outcome;
  } finally {
    await mirror.stop();
    c.stopping.removeEventListener("abort", onStop);
    c.running.delete(id);
    c.lockLost.delete(id);
    c.changed();
  }
}

/** The attempt run on this worker; an infrastructure fault (a refused agent version among them) is a result too. */
async function attemptResult(
  job: SessionJob,
  c: ProcessorContext,
  signal: AbortSignal,
  shadowRunDir: string,
  mirror: TrajectoryMirror,
): Promise<SessionResult> {
  try {
    const agent = agentFor(job);
    // A refusal of this kind is a result, not a hand-back: the coordinator records why and retries the
    // attempt (another worker may have the right version), as it does for any infrastructure fault.
    const refused = await agentVersionRefusal(job, agent, c.worker);
    if (refused !== null) throw new InfraFault(refused);
    const dataset = await workerDataset(c.redis, c.secret, job.dataset);
    mirror.start();
    return await runSessionJob({
      job,
      dataset,
      agent,
      shadowRunDir,
      worker: c.worker,
      signal,
      progress: (event) => publishEvent(c.redis, job.run_id, { worker: c.worker, session: job.session, attempt: job.attempt, event }),
    });
  } catch (e) {
    if (!(e instanceof InfraFault)) throw e;
    return {
      format: "switch-swe.queue-result/1",
      session: job.session,
      attempt: job.attempt,
      worker: c.worker,
      outcome: "infra_fault",
      detail: e.message,
      summary: null,
      files: [],
    };
  }
}
