import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFiles } from "../../src/formats/run-layout.js";
import { Ledger } from "../../src/run/ledger.js";
import { sessionId } from "../../src/formats/sessions.js";
import { cli } from "../helpers/cli.js";
import { makeRunFixture, writeScript, type RunFixture } from "../run/fixture.js";
import { freePort, RedisServer, runCli, waitFor, WorkerProcess } from "./fleet.js";
import { attemptWorkDir } from "../../src/run/session-dir.js";
import { isTombstone } from "../../src/queue/attempt-fence.js";
import { Redis } from "ioredis";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap, redis-server: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "redis-server");

// Faults of a distributed run: a worker killed in the middle of a session, the coordinator killed and
// resumed, Redis stopped and started again (empty: the tests' Redis keeps nothing on disk).
let fx: RunFixture;
let redis: RedisServer;
let workers: WorkerProcess[] = [];
let order: string[];
const hangPids: number[] = [];

beforeAll(async () => {
  fx = makeRunFixture(2);
  order = fx.sessions.pairs.flatMap((p) => [sessionId(p.id, "base"), sessionId(p.id, "switch")]);
  redis = new RedisServer(await freePort(), join(fx.root, "redis"));
  await redis.start();
  workers = [1, 2, 3].map((n) => new WorkerProcess(fx.root, n, redis.url, ["--concurrency", "2", "--allow-unconfined"], 8));
}, 600_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await redis?.stop();
  for (const pid of hangPids) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

/** The session whose attempt 1 works in `workspace` (a path under `<run>/work/<id>/wNN`). */
function sessionOfWorkspace(out: string, workspace: string): string {
  const createdAt = (JSON.parse(readFileSync(runFiles.config(out), "utf8")) as { created_at: string }).created_at;
  const id = basename(dirname(workspace));
  return order.find((s) => basename(attemptWorkDir("/", createdAt, s, 1)) === id)!;
}

/** An agent that notes each request in its workspace; `hang` makes one session's request 1 hang once. */
function agent(name: string, hang: boolean): string {
  const mark = join(fx.root, `${name}.hung`);
  const body = [
    `echo "request $SWITCH_SWE_REQUEST_INDEX" >> notes.txt`,
    // Nothing in the agent's environment names its session: the first request 1 seen hangs, and its
    // workspace path (unsandboxed) names the attempt's work directory, from which the test finds the session.
    hang
      ? `if [ "$SWITCH_SWE_REQUEST_INDEX" = 1 ] && mkdir "${mark}.lock" 2>/dev/null; then echo "$$ $SWITCH_SWE_WORKSPACE" > "${mark}"; exec sleep 600; fi`
      : "",
    "sleep 0.3",
  ];
  return writeScript(fx.root, `${name}.sh`, body.join("\n"));
}

/** The run's id (queue.json, written when the coordinator starts): worker log lines name it, and the runs share session ids. */
function runIdOf(out: string): string {
  return (JSON.parse(readFileSync(join(out, "queue.json"), "utf8")) as { run_id: string }).run_id;
}

function startRun(out: string, script: string, extra: string[] = []) {
  const args = [
    "run",
    "--dataset",
    fx.datasetDir,
    "--sessions",
    fx.sessionsPath,
    "--agent",
    "command",
    "--agent-opt",
    `command=${script}`,
    "--out",
    out,
    "--no-verify",
    "--queue",
    redis.url,
    ...extra,
  ];
  return runCli(args, { SWITCH_SWE_CACHE: join(fx.root, "coord-cache") });
}

function attempts(out: string) {
  const ledger = Ledger.openReadonly(runFiles.ledger(out));
  try {
    return ledger.attempts().map((a) => ({ session: a.session, attempt: a.attempt, status: a.status, detail: a.detail }));
  } finally {
    ledger.close();
  }
}

function finishedCount(out: string): number {
  return order.filter((s) => existsSync(runFiles.summary(out, s))).length;
}

/** What a run directory holds that must not depend on faults: artifacts, summaries without times. */
function outcome(out: string) {
  return Object.fromEntries(
    order.map((s) => {
      const dir = runFiles.sessionDir(out, s);
      const summary = JSON.parse(readFileSync(runFiles.summary(out, s), "utf8")) as Record<string, unknown>;
      const { started_at: _a, ended_at: _b, duration_ms: _c, conversation: _d, attempts: _e, attempt: _f, ...facts } = summary;
      const patches = readdirSync(join(dir, "workspaces")).map((f) => readFileSync(join(dir, "workspaces", f), "utf8"));
      return [s, { facts, artifact: readFileSync(runFiles.artifact(out, s), "utf8"), patches }];
    }),
  );
}

describe.skipIf(missingTool)("faults of a distributed run", () => {
  it("a worker killed with -9 in the middle of a session: attempt 2 runs elsewhere, nothing lost or doubled", async () => {
    const out = join(fx.root, "run-worker-killed");
    const run = startRun(out, agent("w-kill", true), ["--sandbox", "none"]);
    const mark = join(fx.root, "w-kill.hung");
    await waitFor(() => existsSync(mark) && readFileSync(mark, "utf8").trim().includes(" "), 120_000, "the hanging request");
    const [pid, workspace] = readFileSync(mark, "utf8").trim().split(" ") as [string, string];
    hangPids.push(Number(pid));
    const hung = sessionOfWorkspace(out, workspace);
    expect(hung).toBeDefined();
    const runId = runIdOf(out);
    const victim = workers.find((w) => w.log().includes(`start ${hung} attempt 1 (run ${runId})`))!;
    expect(victim).toBeDefined();
    // `queue status` shows, from anywhere, which worker runs what and the run's coordinator.
    const status = cli(["queue", "status", redis.url]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`workers: 3\\n[^]*${hung.replace(/\./g, "\\.")}#1`));
    expect(status.stdout).toMatch(
      /runs: 1\n\s+[0-9a-f]{16}\s+run-worker-killed\s+"command[^"]*"\s+4 sessions: \d+ queued, [1-9]\d* running, 0 verifications; coordinator \S+ pid \d+/,
    );
    await victim.stop();
    const res = await run.done;
    expect(res.code).toBe(0);
    const rows = attempts(out);
    expect(rows.filter((r) => r.session === hung).map((r) => [r.attempt, r.status])).toEqual([
      [1, "infra_fault"],
      [2, "finished"],
    ]);
    // The victim may have run a second session (concurrency 2): that one was restarted the same way.
    for (const r of rows.filter((x) => x.status !== "finished"))
      expect([r.status, r.detail]).toEqual(["infra_fault", expect.stringContaining("stopped renewing its lock")]);
    for (const s of order) expect(rows.filter((r) => r.session === s && r.status === "finished")).toHaveLength(1);
    // The dead attempt's trajectory was archived like a local restart's; attempt 2 ran on another worker.
    const archived = readFileSync(join(runFiles.sessionDir(out, hung), "attempts", "1", "trajectory.jsonl"), "utf8");
    expect(JSON.parse(archived.split("\n")[0]!)).toMatchObject({ type: "session_start", attempt: 1 });
    expect(JSON.parse(readFileSync(runFiles.trajectory(out, hung), "utf8").split("\n")[0]!)).toMatchObject({ attempt: 2 });
    expect(workers.filter((w) => w !== victim).some((w) => w.log().includes(`start ${hung} attempt 2 (run ${runId})`))).toBe(true);
    const report = cli(["report", out, "--format", "json"]);
    expect(report.code).toBe(0);
    const entries = (JSON.parse(report.stdout) as { configs: Array<{ sessions: Array<{ id: string; attempts: number }> }> }).configs[0]!
      .sessions;
    expect(entries.map((e) => [e.id, e.attempts]).sort()).toEqual(order.map((s) => [s, rows.filter((r) => r.session === s).length]).sort());
    workers[workers.indexOf(victim)] = new WorkerProcess(fx.root, 4, redis.url, ["--concurrency", "2", "--allow-unconfined"], 8);
  }, 400_000);

  it("a worker stopped (SIGSTOP) until its job stalls, then continued: its late attempt 1 neither overwrites nor doubles attempt 2", async () => {
    const out = join(fx.root, "run-worker-hung");
    const run = startRun(out, agent("w-stop", true), ["--sandbox", "none"]);
    const mark = join(fx.root, "w-stop.hung");
    await waitFor(() => existsSync(mark) && readFileSync(mark, "utf8").trim().includes(" "), 120_000, "the hanging request");
    const [pid, workspace] = readFileSync(mark, "utf8").trim().split(" ") as [string, string];
    hangPids.push(Number(pid));
    const hung = sessionOfWorkspace(out, workspace);
    const runId = runIdOf(out);
    const victim = workers.find((w) => w.log().includes(`start ${hung} attempt 1 (run ${runId})`))!;
    expect(victim).toBeDefined();
    process.kill(victim.child.pid!, "SIGSTOP");
    try {
      await waitFor(
        () => workers.some((w) => w !== victim && w.log().includes(`start ${hung} attempt 2 (run ${runId})`)),
        120_000,
        "attempt 2 on another worker",
      );
      // The hung request of attempt 1 ends while its worker is stopped: the worker comes back with work to deliver.
      process.kill(Number(pid), "SIGTERM");
      expect((await run.done).code).toBe(0);
    } finally {
      process.kill(victim.child.pid!, "SIGCONT");
    }
    await waitFor(
      () => victim.log().includes(`dropped the result of ${hung} attempt 1 (run ${runId})`),
      120_000,
      "the late attempt's result dropped",
    );
    const rows = attempts(out);
    expect(rows.filter((r) => r.session === hung).map((r) => [r.attempt, r.status])).toEqual([
      [1, "infra_fault"],
      [2, "finished"],
    ]);
    for (const s of order) expect(rows.filter((r) => r.session === s && r.status === "finished")).toHaveLength(1);
    expect(JSON.parse(readFileSync(runFiles.summary(out, hung), "utf8"))).toMatchObject({ attempt: 2, status: "finished" });
    expect(JSON.parse(readFileSync(runFiles.trajectory(out, hung), "utf8").split("\n")[0]!)).toMatchObject({ attempt: 2 });
    const report = cli(["report", out, "--format", "json"]);
    const entries = (JSON.parse(report.stdout) as { configs: Array<{ sessions: Array<{ id: string; attempts: number }> }> }).configs[0]!
      .sessions;
    expect(entries.filter((e) => e.id === hung).map((e) => e.attempts)).toEqual([2]);
    // Nothing of the late attempt is left in Redis but the coordinator's fence (a tombstone that expires).
    const redisClient = new Redis(redis.url);
    try {
      expect(await redisClient.keys(`switch-swe:run:${runId}:trajectory:*`)).toEqual([]);
      for (const k of await redisClient.keys(`switch-swe:run:${runId}:result:*`))
        expect(isTombstone((await redisClient.getBuffer(k))!)).toBe(true);
      expect(await redisClient.exists(`switch-swe:run:${runId}:result:${hung}:1`)).toBe(1);
    } finally {
      redisClient.disconnect();
    }
  }, 400_000);

  it("the coordinator killed with -9, then --resume: the same run directory as an uninterrupted run", async () => {
    const script = agent("steady", false);
    const plain = join(fx.root, "run-plain");
    expect((await startRun(plain, script, ["--quiet"]).done).code).toBe(0);

    const out = join(fx.root, "run-coordinator-killed");
    const first = startRun(out, script, ["--quiet"]);
    await waitFor(() => finishedCount(out) >= 1, 120_000, "a finished session");
    first.child.kill("SIGKILL");
    await first.done;
    expect(finishedCount(out)).toBeLessThan(order.length);
    const again = await startRun(out, script, ["--resume"]).done;
    expect(again.code).toBe(0);
    expect(outcome(out)).toEqual(outcome(plain));
    // Attempts that ran on while no coordinator was there were collected, not run again.
    // (An attempt lost to a stall on a starved machine shows as an infra_fault: never as a second finish.)
    const rows = attempts(out);
    for (const s of order) expect(rows.filter((r) => r.session === s && r.status === "finished")).toHaveLength(1);
    for (const r of rows.filter((x) => x.status !== "finished"))
      expect([r.status, r.detail]).toEqual(["infra_fault", expect.stringContaining("stopped renewing its lock")]);
  }, 400_000);

  it("refuses a second coordinator of the same run", async () => {
    const out = join(fx.root, "run-two-coordinators");
    const first = startRun(out, agent("slow-two", false), ["--quiet"]);
    await waitFor(() => existsSync(join(out, "queue.json")), 60_000, "queue.json");
    const second = await startRun(out, agent("slow-two", false), ["--resume"]).done;
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/in use by another switch-swe run|another coordinator runs this run/);
    expect((await first.done).code).toBe(0);
  }, 400_000);

  it("Redis stopped and started again (empty): no finished result is lost, nothing counted twice", async () => {
    const out = join(fx.root, "run-redis-restart");
    const run = startRun(out, agent("redis", false), ["--quiet"]);
    await waitFor(() => finishedCount(out) >= 1, 120_000, "a finished session");
    const before = order.filter((s) => existsSync(runFiles.summary(out, s)));
    await redis.stop();
    await new Promise((r) => setTimeout(r, 3000));
    await redis.start();
    const res = await run.done;
    expect(res.code).toBe(0);
    const rows = attempts(out);
    for (const s of order) expect(rows.filter((r) => r.session === s && r.status === "finished")).toHaveLength(1);
    for (const s of before) expect(rows.filter((r) => r.session === s)).toHaveLength(1);
  }, 400_000);
});
