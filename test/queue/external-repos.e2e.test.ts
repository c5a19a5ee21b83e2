import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFiles } from "../../src/formats/run-layout.js";
import { sessionId } from "../../src/formats/sessions.js";
import { makeRunFixture, writeScript, type RunFixture } from "../run/fixture.js";
import { freePort, RedisServer, runCli, waitFor, WorkerProcess } from "./fleet.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap, redis-server: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "redis-server");

// A dataset whose repository lives outside the dataset directory (`git` names a local path elsewhere):
// the coordinator ships a git bundle of what the tasks need, and a worker that cannot see that path
// (it is moved away before the worker starts) runs and verifies the sessions from the bundle.
let fx: RunFixture;
let redis: RedisServer;
let worker: WorkerProcess | null = null;
let outside: string;

beforeAll(async () => {
  fx = makeRunFixture(1);
  outside = join(fx.root, "elsewhere", "demo");
  renameSync(join(fx.datasetDir, "repos", "demo"), join(fx.root, "demo-tree"));
  execFileSync("mkdir", ["-p", join(fx.root, "elsewhere")]);
  renameSync(join(fx.root, "demo-tree"), outside);
  const git = (...args: string[]) => execFileSync("git", ["-C", outside, "-c", "user.name=t", "-c", "user.email=t@t", ...args]);
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-qm", "base");
  const manifest = JSON.parse(readFileSync(join(fx.datasetDir, "dataset.json"), "utf8")) as { repos: Record<string, unknown> };
  manifest.repos.demo = { git: outside };
  writeFileSync(join(fx.datasetDir, "dataset.json"), JSON.stringify(manifest, null, 2));
  redis = new RedisServer(await freePort(), join(fx.root, "redis"));
  await redis.start();
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await redis?.stop();
});

describe.skipIf(missingTool)("a repository outside the dataset directory", () => {
  it("travels as a content-addressed bundle, and workers run and verify from it", async () => {
    const out = join(fx.root, "run");
    const script = writeScript(fx.root, "agent.sh", 'echo "request $SWITCH_SWE_REQUEST_INDEX" >> notes.txt');
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
      "--queue",
      redis.url,
    ];
    const run = runCli(args, { SWITCH_SWE_CACHE: join(fx.root, "coord-cache") });
    const client = new Redis(redis.url);
    try {
      // The dataset pack and the repository's bundle are in Redis before any job: then the source goes away.
      await waitFor(
        async () => (await client.keys("switch-swe:blob:*")).filter((k) => k.split(":").length === 4).length === 2,
        120_000,
        "two blobs",
      );
      await waitFor(async () => (await client.keys("bull:switch-swe-sessions:*")).length > 0, 60_000, "the jobs");
    } finally {
      client.disconnect();
    }
    renameSync(outside, `${outside}.gone`);
    worker = new WorkerProcess(fx.root, 1, redis.url);
    const res = await run.done;
    renameSync(`${outside}.gone`, outside);
    expect(res.stderr, `${res.stderr}\n${worker.log()}`).toContain("run done: 2 finished, 0 failed");
    expect(res.code).toBe(0);
    const sessions = fx.sessions.pairs.flatMap((p) => [sessionId(p.id, "base"), sessionId(p.id, "switch")]);
    for (const s of sessions) {
      expect(readFileSync(runFiles.artifact(out, s), "utf8")).toContain("+request 1");
      const v = JSON.parse(readFileSync(runFiles.verdict(out, s), "utf8")) as { infra_fault: boolean; applied: boolean };
      expect(v).toMatchObject({ infra_fault: false, applied: true });
    }
    // The worker cached one bundle (named by its digest), and the sessions' checkouts came from it.
    const bundles = readdirSync(join(fx.root, "worker-1", "cache", "queue", "bundles"));
    expect(bundles).toHaveLength(1);
    expect(bundles[0]).toMatch(/^[0-9a-f]{64}\.bundle$/);
    expect(existsSync(outside)).toBe(true);
    expect(worker.log()).not.toMatch(/infra|fault|error/i);
  }, 300_000);
});
