import { hkdfSync } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Queue, type Job } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFiles } from "../../src/formats/run-layout.js";
import { sessionId } from "../../src/formats/sessions.js";
import { sessionJobId, sessionQueue, taskQueue, verifyQueue } from "../../src/queue/keys.js";
import { skipWithout } from "../helpers/tools.js";
import { makeRunFixture, writeScript, type RunFixture } from "../run/fixture.js";
import { freePort, RedisServer, runCli, testQueueSecret, waitFor, WorkerProcess } from "./fleet.js";

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
  const args = [
    "run",
    "--dataset",
    fx.datasetDir,
    "--sessions",
    fx.sessionsPath,
    "--session",
    session,
    "--agent",
    "command",
    "--agent-opt",
    `command=${command}`,
  ];
  return runCli([...args, "--out", out, "--no-verify", "--queue", redis.url, ...extra], coord());
}

function worker(n: number, extra: string[], env: NodeJS.ProcessEnv = {}): WorkerProcess {
  const w = new WorkerProcess(fx.root, n, redis.url, extra, 15, env);
  workers.push(w);
  return w;
}

async function runIdOf(out: string): Promise<string> {
  const file = join(out, "queue.json");
  await waitFor(() => existsSync(file), 120_000, "queue.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { run_id: string }).run_id;
}

const attemptsOf = (out: string) =>
  JSON.parse(readFileSync(runFiles.summary(out, session), "utf8")) as {
    status: string;
    attempts: Array<{ attempt: number; status: string; detail: string | null }>;
  };
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
      // Its own attempt number (an attempt that has a result already is not run again), its command, no sandbox.
      const payload = (name: string, attempt: number) => ({
        ...(real!.data as Record<string, unknown>),
        attempt,
        agent: { ...(real!.data as { agent: object }).agent, options: { command: `touch ${marker(name)}` } },
        sandbox: null,
      });
      const copyId = sessionJobId(runId, session, 7);
      await queue.add("session", payload("copy", 7), { jobId: copyId }); // the real job's mac kept, another id and data
      const { mac: _mac, ...unsigned } = payload("unsigned", 8) as Record<string, unknown>;
      const unsignedId = sessionJobId(runId, session, 8);
      await queue.add("session", unsigned, { jobId: unsignedId });
      // The real job itself, altered after signing: straight into its hash in Redis.
      await client.hset(`bull:${sessionQueue}:${realId}`, "data", JSON.stringify(payload("altered", 1)));

      // Allowed to run unconfined: only the signature stands between these jobs and the host.
      const w = worker(1, ["--allow-unconfined", "--allow-network"]);
      const forgedIds = [realId, copyId, unsignedId];
      await waitFor(
        async () =>
          (await Promise.all(forgedIds.map((id) => queue.getJobState(id)))).every(
            (s) => s === "failed" || s === "completed" || s === "unknown",
          ),
        180_000,
        "the worker to take the forged jobs",
      );
      const res = await run.done;

      for (const name of ["copy", "unsigned", "altered"])
        expect(existsSync(marker(name)), `the payload of the ${name} job ran`).toBe(false);
      const log = w.log();
      expect(linesOf(log, copyId)).toEqual([
        expect.stringMatching(
          /refused job \S+ \(switch-swe-sessions, not run\): unauthenticated job: its mac does not match its data, name, id and queue/,
        ),
      ]);
      expect(linesOf(log, realId)).toEqual([
        expect.stringMatching(/\(switch-swe-sessions, not run\): unauthenticated job: its mac does not match/),
      ]);
      expect(linesOf(log, unsignedId)).toEqual([
        expect.stringMatching(/\(switch-swe-sessions, not run\): unauthenticated job: unsigned: it carries no mac/),
      ]);
      // Failed for good (not retried), with the reason for whoever looks at the queue.
      for (const id of [copyId, unsignedId]) {
        expect(await queue.getJobState(id)).toBe("failed");
        expect((await queue.getJob(id))?.failedReason).toMatch(/^refused by worker \S+: unauthenticated job: /);
      }
      // The coordinator sees its altered attempt fail (an infrastructure fault, with the reason) and issues the next, signed anew.
      expect(res.code, res.stderr).toBe(0);
      const s = attemptsOf(out);
      expect(s.status).toBe("finished");
      expect(s.attempts[0]).toMatchObject({
        attempt: 1,
        status: "infra_fault",
        detail: expect.stringMatching(/refused by worker \S+: unauthenticated job: its mac does not match/),
      });
      expect(s.attempts.at(-1)).toMatchObject({ attempt: 2, status: "finished" });
    } finally {
      client.disconnect();
      await queue.close();
      await Promise.all(workers.map((w) => w.stop()));
    }
  }, 600_000);

  it("is refused on the verification and the mining and qualification queues too, before anything of it is read", async () => {
    const w = worker(6, ["--allow-unconfined", "--allow-network"]);
    const forged: Array<[string, string, Record<string, unknown>]> = [
      [verifyQueue, "verify", { kind: "verify", run_id: "0123456789abcdef", session: "s", sandbox: "none", mac: "0".repeat(64) }],
      [taskQueue, "mine", { kind: "mine", run_id: "0123456789abcdef", candidate: "c" }],
      [taskQueue, "qualify", { kind: "qualify", run_id: "0123456789abcdef", task: "t", mac: "f".repeat(64) }],
    ];
    const queues = new Map<string, Queue>();
    try {
      for (const [name, kind, data] of forged) {
        const q = queues.get(name) ?? new Queue(name, { connection: { host: "127.0.0.1", port: redis.port } });
        queues.set(name, q);
        await q.add(kind, data, { jobId: `forged-${kind}` });
      }
      for (const [name, kind] of forged) {
        const q = queues.get(name)!;
        await waitFor(async () => (await q.getJobState(`forged-${kind}`)) === "failed", 120_000, `forged ${kind} job to fail`);
        expect((await q.getJob(`forged-${kind}`))?.failedReason).toMatch(/^refused by worker \S+: unauthenticated job: /);
        expect(linesOf(w.log(), `forged-${kind}`)).toEqual([expect.stringContaining(`(${name}, not run): unauthenticated job: `)]);
      }
    } finally {
      for (const q of queues.values()) await q.close();
      await w.stop();
    }
  }, 300_000);

  it("signed but asking for no sandbox, is refused by a worker not started with --allow-unconfined, and runs on one that was", async () => {
    const refusedMark = join(fx.root, "floor-refused.ran");
    const out = join(fx.root, "run-floor");
    const w = worker(2, []);
    const res = await startRun(out, `touch ${refusedMark}`, ["--sandbox", "none"]).done;
    expect(existsSync(refusedMark), "the agent ran unconfined on a worker that did not allow it").toBe(false);
    const refusals = w
      .log()
      .split("\n")
      .filter((l) =>
        / refused job \S+ \(switch-swe-sessions, not run\): the job runs its agent with no sandbox \(sandbox: none\), which this worker refuses unless started with --allow-unconfined$/.test(
          l,
        ),
      );
    expect(refusals.length, w.log()).toBe(3); // attempt 1 and its two retries (max_infra_retries)
    expect(res.code, res.stderr).not.toBe(0);
    const s = attemptsOf(out);
    expect(s.status).toBe("failed");
    for (const a of s.attempts)
      expect(a).toMatchObject({
        status: "infra_fault",
        detail: expect.stringMatching(/refused by worker \S+: the job runs its agent with no sandbox/),
      });
    await w.stop();

    // The same run on a worker whose owner allowed it: the payload runs (the marker is a real one).
    const allowedMark = join(fx.root, "floor-allowed.ran");
    worker(3, ["--allow-unconfined"]);
    const ok = await startRun(join(fx.root, "run-floor-allowed"), `touch ${allowedMark}`, ["--sandbox", "none"]).done;
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(allowedMark)).toBe(true);
  }, 600_000);
});

describe.skipIf(missingTool)("an agent on a worker", () => {
  // Request 1 prints its environment, then walks up its ancestors' /proc/<pid>/environ until the
  // worker's (which it reaches when it runs unconfined: the same pid namespace).
  const dump = [
    '[ "$SWITCH_SWE_REQUEST_INDEX" = 1 ] || exit 0',
    "env",
    "p=$$",
    'while [ "$p" -gt 1 ]; do',
    '  tr "\\0" "\\n" < /proc/$p/environ',
    '  if tr "\\0" " " < /proc/$p/cmdline | grep -q " worker "; then echo WORKER-ENVIRON-READ; break; fi',
    "  p=$(awk '/^PPid:/{print $2}' /proc/$p/status)",
    "done",
  ].join("\n");
  // What must not be there: the variables' names, the secret, and every key derived from it.
  const derived = ["result-mac/1", "job-mac/1", "blob-aes-256-gcm/1"].map((info) =>
    Buffer.from(hkdfSync("sha256", Buffer.from(testQueueSecret), "switch-swe-queue", info, 32)),
  );
  const forbidden = ["SWITCH_SWE_QUEUE", testQueueSecret, ...derived.flatMap((k) => [k.toString("hex"), k.toString("base64")])];

  it.each([
    ["none", true],
    ["bwrap", false],
  ])(
    "sees neither the queue secret, nor the queue's URL, nor a key derived from them (--sandbox %s)",
    async (mode, reachesWorker) => {
      const script = writeScript(fx.root, `env-dump-${mode}.sh`, dump);
      const out = join(fx.root, `run-env-${mode}`);
      // Even told to pass them on, and with the URL in the environment, the worker gives its agents neither.
      const w = worker(
        mode === "none" ? 4 : 5,
        ["--allow-unconfined", "--pass-env", "SWITCH_SWE_QUEUE_SECRET", "--pass-env", "SWITCH_SWE_QUEUE"],
        { SWITCH_SWE_QUEUE: redis.url },
      );
      try {
        const res = await startRun(out, script, ["--sandbox", mode]).done;
        expect(res.code, res.stderr).toBe(0);
        const trajectory = readFileSync(runFiles.trajectory(out, session), "utf8");
        expect(trajectory).toContain("PATH=");
        expect(trajectory.includes("WORKER-ENVIRON-READ"), "the agent read the worker's /proc/<pid>/environ").toBe(reachesWorker);
        for (const f of forbidden) expect(trajectory.includes(f), `the agent saw ${f.slice(0, 24)}`).toBe(false);
      } finally {
        await w.stop();
      }
    },
    600_000,
  );
});
