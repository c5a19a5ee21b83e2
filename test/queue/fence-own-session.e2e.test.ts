import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFiles } from "../../src/formats/run-layout.js";
import { sessionId } from "../../src/formats/sessions.js";
import { sessionJobId, sessionQueue } from "../../src/queue/keys.js";
import { Ledger } from "../../src/run/ledger.js";
import { skipWithout } from "../helpers/tools.js";
import { makeRunFixture, writeScript, type RunFixture } from "../run/fixture.js";
import { freePort, RedisServer, runCli, waitFor, WorkerProcess } from "./fleet.js";

// Needs bwrap, redis-server: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "redis-server");

// A worker hung (SIGSTOP) past the stall timeout while it ran attempt 1 of a session, then continued,
// with a free slot and attempt 2 of that very session waiting in the queue: it must not start attempt 2
// beside its own attempt 1 (same session directory), only once attempt 1 has stopped, or leave it to another.
let fx: RunFixture;
let redis: RedisServer;
const workers: WorkerProcess[] = [];
const sleepers: number[] = [];

beforeAll(async () => {
  fx = makeRunFixture(2);
  redis = new RedisServer(await freePort(), join(fx.root, "redis"));
  await redis.start();
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await redis?.stop();
  for (const pid of sleepers) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** An agent whose request 1 hangs (`once`: only the first one seen), noting each hanging pid in `mark`; other requests are short. */
function hangingAgent(name: string, once: boolean): { script: string; mark: string } {
  const mark = join(fx.root, `${name}.hung`);
  const first = once ? ` && mkdir "${mark}.lock" 2>/dev/null` : "";
  const body = [
    `echo "request $SWITCH_SWE_REQUEST_INDEX" >> notes.txt`,
    `if [ "$SWITCH_SWE_REQUEST_INDEX" = 1 ]${first}; then echo "$$" >> "${mark}"; exec sleep 600; fi`,
    "sleep 0.2",
  ];
  return { script: writeScript(fx.root, `${name}.sh`, body.join("\n")), mark };
}

function startRun(out: string, sessions: string[], script: string) {
  const args = [
    "run",
    "--dataset",
    fx.datasetDir,
    "--sessions",
    fx.sessionsPath,
    ...sessions.flatMap((s) => ["--session", s]),
    "--agent",
    "command",
    "--agent-opt",
    `command=${script}`,
  ];
  return runCli([...args, "--out", out, "--no-verify", "--sandbox", "none", "--queue", redis.url], {
    SWITCH_SWE_CACHE: join(fx.root, "coord-cache"),
  });
}

/** The pid of the `n`th hanging request (1-based) noted in `mark`, once it hangs. */
async function pidIn(mark: string, n = 1): Promise<number> {
  const pids = () =>
    existsSync(mark)
      ? readFileSync(mark, "utf8")
          .split("\n")
          .filter((l) => /^\d+$/.test(l))
          .map(Number)
      : [];
  await waitFor(() => pids().length >= n, 180_000, `hanging request ${n} (${mark})`);
  const pid = pids()[n - 1]!;
  sleepers.push(pid);
  return pid;
}

function runId(out: string): string {
  return (JSON.parse(readFileSync(join(out, "queue.json"), "utf8")) as { run_id: string }).run_id;
}

describe.skipIf(missingTool)("a hung worker that comes back", () => {
  it("does not take attempt 2 of the session whose attempt 1 it still runs", async () => {
    const victimSession = sessionId(fx.sessions.pairs[0]!.id, "base");
    const blockerSessions = [sessionId(fx.sessions.pairs[1]!.id, "base"), sessionId(fx.sessions.pairs[1]!.id, "switch")];
    const queue = new Queue(sessionQueue, { connection: { host: "127.0.0.1", port: redis.port } });
    try {
      // Worker A (two slots) takes attempt 1 of the victim's session, whose request 1 hangs; A is then stopped.
      const a = new WorkerProcess(fx.root, 1, redis.url, ["--concurrency", "2", "--allow-unconfined"], 8);
      workers.push(a);
      const victim = hangingAgent("victim", true);
      const outA = join(fx.root, "run-victim");
      const runA = startRun(outA, [victimSession], victim.script);
      let said = "";
      runA.child.stderr?.on("data", (d: Buffer) => (said += d.toString()));
      await pidIn(victim.mark);
      process.kill(a.child.pid!, "SIGSTOP");
      try {
        // Worker B (one slot) and another run of two sessions that hang: B runs the first, finds A's attempt
        // stalled (BullMQ puts it back at the head of the queue, to be failed by the next worker that takes
        // it), and once the first blocker is let go, takes attempt 1 (failing it) and then the second blocker:
        // when the coordinator adds attempt 2, no worker but A has a free slot.
        const blocker = hangingAgent("blocker", false);
        const runB = startRun(join(fx.root, "run-blocker"), blockerSessions, blocker.script);
        await waitFor(async () => (await queue.getWaitingCount()) >= 2, 120_000, "the blocking run's jobs");
        const b = new WorkerProcess(fx.root, 2, redis.url, ["--concurrency", "1", "--allow-unconfined"], 8);
        workers.push(b);
        const firstBlocker = await pidIn(blocker.mark, 1);
        const id = runId(outA);
        const explain = (e: Error) => {
          throw new Error(`${e.message}\nworker B:\n${b.log()}\ncoordinator:\n${said}`);
        };
        await waitFor(
          async () => (await queue.getJobState(sessionJobId(id, victimSession, 1))) === "waiting",
          180_000,
          "attempt 1 found stalled",
        ).catch(explain);
        process.kill(firstBlocker, "SIGTERM");
        const secondBlocker = await pidIn(blocker.mark, 2);
        await waitFor(
          async () => (await queue.getJobState(sessionJobId(id, victimSession, 2))) === "waiting",
          180_000,
          "attempt 2 in the queue",
        ).catch(explain);
        process.kill(a.child.pid!, "SIGCONT");
        // A stops its given-up attempt 1 (its lock is lost, the attempt fenced); it may run attempt 2 only after that.
        await waitFor(
          () => a.log().includes(`dropped the result of ${victimSession} attempt 1 (run ${id})`),
          180_000,
          "attempt 1 stopped on the worker that hung",
        );
        process.kill(secondBlocker, "SIGTERM");
        expect((await runB.done).code).toBe(0);
      } finally {
        process.kill(a.child.pid!, "SIGCONT");
      }
      expect((await runA.done).code).toBe(0);
      const log = a.log();
      const dropped = log.indexOf(`dropped the result of ${victimSession} attempt 1 (run ${runId(outA)})`);
      const started2 = log.indexOf(`start ${victimSession} attempt 2 (run ${runId(outA)})`);
      expect(dropped).toBeGreaterThan(0);
      // Attempt 2 came to A while attempt 1 still ran there: handed back, not started beside it.
      expect(log).toContain(`attempt 1 of ${victimSession} still runs on this worker`);
      if (started2 >= 0) expect(started2).toBeGreaterThan(dropped);
      const ledger = Ledger.openReadonly(runFiles.ledger(outA));
      try {
        expect(ledger.attempts().map((r) => [r.session, r.attempt, r.status])).toEqual([
          [victimSession, 1, "infra_fault"],
          [victimSession, 2, "finished"],
        ]);
      } finally {
        ledger.close();
      }
      expect(JSON.parse(readFileSync(runFiles.summary(outA, victimSession), "utf8"))).toMatchObject({ attempt: 2, status: "finished" });
      expect(JSON.parse(readFileSync(runFiles.trajectory(outA, victimSession), "utf8").split("\n")[0]!)).toMatchObject({ attempt: 2 });
    } finally {
      await queue.close();
    }
  }, 600_000);
});
