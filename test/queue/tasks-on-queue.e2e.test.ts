import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { writeShapesHistory } from "../helpers/shapes-history.js";
import { skipWithout } from "../helpers/tools.js";
import { tempDir } from "../verify/fixture.js";
import { freePort, RedisServer, runCli, waitFor, WorkerProcess } from "./fleet.js";

// Needs bwrap (the test-run sandbox) and redis-server: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "redis-server");

// `tasks mine --queue` and `tasks qualify --queue` on two local workers give what the local commands give.
const root = tempDir("switch-swe-tasks-queue-");
const env = { SWITCH_SWE_CACHE: join(root, "coord-cache") };
let repo: string;
let redis: RedisServer;
let workers: WorkerProcess[] = [];
const local = join(root, "local");

beforeAll(async () => {
  repo = writeShapesHistory(root);
  redis = new RedisServer(await freePort(), join(root, "redis"));
  await redis.start();
  workers = [1, 2].map((n) => new WorkerProcess(root, n, redis.url));
  // The reference: the same range mined here.
  const r = cli(["tasks", "mine", repo, "--out", local, "--runs", "2"], { env: { SWITCH_SWE_CACHE: join(root, "local-cache") } });
  expect(r.code).toBe(0);
}, 600_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await redis?.stop();
  rmSync(root, { recursive: true, force: true });
});

const mine = (out: string) => runCli(["tasks", "mine", repo, "--out", out, "--runs", "2", "--queue", redis.url], env);

/** mine-report.json without what depends on timing. */
function reportOf(dir: string): unknown {
  const r = JSON.parse(readFileSync(join(dir, "mine-report.json"), "utf8")) as { mined: Array<Record<string, unknown>> };
  return { ...r, mined: r.mined.map(({ qualification_ms: _ms, ...m }) => m) };
}

function tasksOf(dir: string): Record<string, Record<string, string>> {
  return Object.fromEntries(
    readdirSync(join(dir, "tasks"))
      .sort()
      .map((id) => [
        id,
        Object.fromEntries(
          readdirSync(join(dir, "tasks", id))
            .sort()
            .map((f) => [f, readFileSync(join(dir, "tasks", id, f), "utf8")]),
        ),
      ]),
  );
}

function decided(dir: string): number {
  try {
    const r = JSON.parse(readFileSync(join(dir, "mine-report.json"), "utf8")) as { mined: unknown[]; rejected: unknown[] };
    return r.mined.length + r.rejected.length;
  } catch {
    return 0;
  }
}

describe.skipIf(missingTool)("mining and qualification on a queue", () => {
  it("tasks mine --queue mines what a local run mines: the same manifest.json bytes, report and task files", async () => {
    const out = join(root, "queued");
    const run = mine(out);
    // While it runs, `queue status` shows the mining run and the workers' mining jobs.
    await waitFor(() => workers.some((w) => w.log().includes("start mine ")), 300_000, "a mining job on a worker");
    const status = cli(["queue", "status", redis.url]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/mining and qualification jobs: \d+ waiting, \d+ running/);
    expect(status.stdout).toMatch(
      /\s+[0-9a-f]{16}\s+queued\s+"tasks mine shapes"\s+3 candidates: \d+ queued, \d+ running; coordinator \S+ pid \d+/,
    );
    expect(status.stdout).toMatch(/\n {2}\S+ {2}switch-swe \S+ {2}1\/1 {2}mine (merged branch|chain of commits) /);
    const r = await run.done;
    expect(r.stdout).toMatch(/^\d+ commits, 3 candidate\(s\): 2 mined, 1 rejected \(1 no F2P\); /);
    expect(r.code).toBe(0);
    expect(readFileSync(join(out, "manifest.json"), "utf8")).toBe(readFileSync(join(local, "manifest.json"), "utf8"));
    expect(reportOf(out)).toEqual(reportOf(local));
    expect(tasksOf(out)).toEqual(tasksOf(local));
    // Both workers took candidates: the test runs travelled (the coordinator ran none itself).
    for (const w of workers) await waitFor(() => /end mine .*: done/.test(w.log()), 30_000, "a mining job's end on each worker");
    expect(existsSync(join(out, "queue.json"))).toBe(true);
  }, 600_000);

  it("the coordinator killed with -9 and run again on the same --out: decided candidates are kept, the rest collected, the same manifest", async () => {
    const out = join(root, "killed");
    const first = mine(out);
    await waitFor(() => decided(out) >= 1, 300_000, "a decided candidate");
    first.child.kill("SIGKILL");
    await first.done;
    const before = decided(out);
    expect(before).toBeGreaterThanOrEqual(1);
    const again = await mine(out).done;
    expect(again.stderr).toContain(`resuming ${out}: `);
    expect(again.stderr).toMatch(new RegExp(`\\d+ mined and \\d+ rejected before, ${3 - before} left`));
    expect(again.code).toBe(0);
    expect(readFileSync(join(out, "manifest.json"), "utf8")).toBe(readFileSync(join(local, "manifest.json"), "utf8"));
    expect(reportOf(out)).toEqual(reportOf(local));
    expect(tasksOf(out)).toEqual(tasksOf(local));
  }, 600_000);

  it("--max 1 on the queue: jobs no worker started are withdrawn, and a run without --max completes the local manifest", async () => {
    const out = join(root, "max");
    const first = await runCli(["tasks", "mine", repo, "--out", out, "--runs", "2", "--max", "1", "--queue", redis.url], env).done;
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/3 candidate\(s\): 1 mined, /);
    expect((JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as { tasks: unknown[] }).tasks).toHaveLength(1);
    // Nothing of this run is left waiting in the queue.
    const status = cli(["queue", "status", redis.url]);
    expect(status.stdout).toMatch(/mining and qualification jobs: 0 waiting/);
    const again = await mine(out).done;
    expect(again.code).toBe(0);
    expect(readFileSync(join(out, "manifest.json"), "utf8")).toBe(readFileSync(join(local, "manifest.json"), "utf8"));
  }, 600_000);

  it("tasks qualify --queue gives the verdicts of a local qualification", async () => {
    const strip = (text: string) =>
      (JSON.parse(text) as Array<Record<string, unknown> & { runs: Array<Record<string, unknown>> }>).map(
        ({ duration_ms: _d, setup_cached: _s, runs, ...r }) => ({
          ...r,
          runs: runs.map(({ duration_ms: _rd, ...x }) => x),
        }),
      );
    const here = cli(["tasks", "qualify", local, "--runs", "1", "--json"], { env: { SWITCH_SWE_CACHE: join(root, "local-cache") } });
    expect(here.code).toBe(0);
    const queued = cli(["tasks", "qualify", local, "--runs", "1", "--json", "--queue", redis.url], { env });
    expect(queued.stderr).toBe("");
    expect(queued.code).toBe(0);
    expect(strip(queued.stdout)).toEqual(strip(here.stdout));
    expect(strip(queued.stdout)).toHaveLength(2);
    // (A worker logs a job's end just after storing its result: the coordinator may be done first.)
    await waitFor(() => workers.some((w) => /end qualify \S+ .*: done/.test(w.log())), 30_000, "a qualification on a worker");
  }, 600_000);
});
