import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Queue, type Job } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFiles } from "../../src/formats/run-layout.js";
import { sessionId } from "../../src/formats/sessions.js";
import { sessionJobId, sessionQueue } from "../../src/queue/keys.js";
import { skipWithout } from "../helpers/tools.js";
import { makeRunFixture, type RunFixture } from "../run/fixture.js";
import { freePort, RedisServer, runCli, waitFor, WorkerProcess } from "./fleet.js";

// Needs bwrap, redis-server: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "redis-server");

// Issue 42, finding 3: whoever can write to the queue's Redis (an agent under --network on, another
// tenant) copied a real session job with another command and `sandbox: none`, and a worker ran it
// unconfined as root. A worker now runs only jobs the coordinator signed, for their id, and no job
// lowers its confinement below what its owner allowed.
let fx: RunFixture;
let redis: RedisServer;
let session: string;
const workers: WorkerProcess[] = [];
const coord = () => ({ SWITCH_SWE_CACHE: join(fx.root, "coord-cache") });

beforeAll(async () => {
  fx = makeRunFixture(1);
  session = sessionId(fx.sessions.pairs[0]!.id, "base");
  redis = new RedisServer(await freePort(), join(fx.root, "redis"));
  await redis.start();
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await redis?.stop();
});

function startRun(out: string, command: string, extra: string[] = []) {
  const args = ["run", "--dataset", fx.datasetDir, "--sessions", fx.sessionsPath, "--session", session, "--agent", "command", "--agent-opt", `command=${command}`];
  return runCli([...args, "--out", out, "--no-verify", "--queue", redis.url, ...extra], coord());
}

function worker(n: number, extra: string[]): WorkerProcess {
  const w = new WorkerProcess(fx.root, n, redis.url, extra, 15);
  workers.push(w);
  return w;
}

async function runIdOf(out: string): Promise<string> {
  const file = join(out, "queue.json");
  await waitFor(() => existsSync(file), 120_000, "queue.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { run_id: string }).run_id;
}

const attemptsOf = (out: string) => (JSON.parse(readFileSync(runFiles.summary(out, session), "utf8")) as { status: string; attempts: Array<{ attempt: number; status: string; detail: string | null }> });
const linesOf = (log: string, id: string) => log.split("\n").filter((l) => l.includes(`refused job ${id} `));

describe.skipIf(missingTool)("a job nobody signed", () => {
  it("copied with another command and no sandbox, altered in place, or unsigned, is refused with one log line and never runs", async () => {
    const out = join(fx.root, "run-forged");
    const run = startRun(out, "true");
    const runId = await runIdOf(out);
    const queue = new Queue(sessionQueue, { connection: { host: "127.0.0.1", port: redis.port } });
    const client = new Redis(redis.url);
    try {
      const realId = sessionJobId(runId, session, 1);
      let real: Job | undefined;
      await waitFor(async () => (real = await queue.getJob(realId)) !== undefined, 120_000, "the real session job");
      const marker = (name: string) => join(fx.root, `${name}.ran`);
      // What the forger wants run: its command, on the host, outside any sandbox, as the worker's root.
      const payload = (name: string) => ({ ...(real!.data as Record<string, unknown>), agent: { ...(real!.data as { agent: object }).agent, options: { command: `touch ${marker(name)}` } }, sandbox: null });
      const copyId = sessionJobId(runId, session, 7);
      await queue.add("session", payload("copy"), { jobId: copyId }); // the real job's mac kept, another id and data
      const { mac: _mac, ...unsigned } = payload("unsigned") as Record<string, unknown>;
      const unsignedId = sessionJobId(runId, session, 8);
      await queue.add("session", unsigned, { jobId: unsignedId });
      // The real job itself, altered after signing: straight into its hash in Redis.
      await client.hset(`bull:${sessionQueue}:${realId}`, "data", JSON.stringify(payload("altered")));

      // Allowed to run unconfined: only the signature stands between these jobs and the host.
      const w = worker(1, ["--allow-unconfined", "--allow-network"]);
      const forgedIds = [realId, copyId, unsignedId];
      await waitFor(async () => (await Promise.all(forgedIds.map((id) => queue.getJobState(id)))).every((s) => s === "failed" || s === "completed" || s === "unknown"), 180_000, "the worker to take the forged jobs");
      const res = await run.done;

      for (const name of ["copy", "unsigned", "altered"]) expect(existsSync(marker(name)), `the payload of the ${name} job ran`).toBe(false);
      const log = w.log();
      expect(linesOf(log, copyId)).toEqual([expect.stringMatching(/refused job \S+ \(switch-swe-sessions, not run\): unauthenticated job: its mac does not match its data, name, id and queue/)]);
      expect(linesOf(log, realId)).toEqual([expect.stringMatching(/\(switch-swe-sessions, not run\): unauthenticated job: its mac does not match/)]);
      expect(linesOf(log, unsignedId)).toEqual([expect.stringMatching(/\(switch-swe-sessions, not run\): unauthenticated job: unsigned: it carries no mac/)]);
      // Failed for good (not retried), with the reason for whoever looks at the queue.
      for (const id of [copyId, unsignedId]) {
        expect(await queue.getJobState(id)).toBe("failed");
        expect((await queue.getJob(id))?.failedReason).toMatch(/^refused by worker \S+: unauthenticated job: /);
      }
      // The coordinator sees its altered attempt fail (an infrastructure fault, with the reason) and issues the next, signed anew.
      expect(res.code, res.stderr).toBe(0);
      const s = attemptsOf(out);
      expect(s.status).toBe("finished");
      expect(s.attempts[0]).toMatchObject({ attempt: 1, status: "infra_fault", detail: expect.stringMatching(/refused by worker \S+: unauthenticated job: its mac does not match/) });
      expect(s.attempts.at(-1)).toMatchObject({ attempt: 2, status: "finished" });
    } finally {
      client.disconnect();
      await queue.close();
      await Promise.all(workers.map((w) => w.stop()));
    }
  }, 600_000);

  it("signed but asking for no sandbox, is refused by a worker not started with --allow-unconfined, and runs on one that was", async () => {
    const refusedMark = join(fx.root, "floor-refused.ran");
    const out = join(fx.root, "run-floor");
    const w = worker(2, []);
    const res = await startRun(out, `touch ${refusedMark}`, ["--sandbox", "none"]).done;
    expect(existsSync(refusedMark), "the agent ran unconfined on a worker that did not allow it").toBe(false);
    const refusals = w.log().split("\n").filter((l) => / refused job \S+ \(switch-swe-sessions, not run\): the job runs its agent with no sandbox \(sandbox: none\), which this worker refuses unless started with --allow-unconfined$/.test(l));
    expect(refusals.length, w.log()).toBe(3); // attempt 1 and its two retries (max_infra_retries)
    expect(res.code, res.stderr).not.toBe(0);
    const s = attemptsOf(out);
    expect(s.status).toBe("failed");
    for (const a of s.attempts) expect(a).toMatchObject({ status: "infra_fault", detail: expect.stringMatching(/refused by worker \S+: the job runs its agent with no sandbox/) });
    await w.stop();

    // The same run on a worker whose owner allowed it: the payload runs (the marker is a real one).
    const allowedMark = join(fx.root, "floor-allowed.ran");
    worker(3, ["--allow-unconfined"]);
    const ok = await startRun(join(fx.root, "run-floor-allowed"), `touch ${allowedMark}`, ["--sandbox", "none"]).done;
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(allowedMark)).toBe(true);
  }, 600_000);
});
