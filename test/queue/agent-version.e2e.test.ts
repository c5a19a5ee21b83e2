import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runFiles } from "../../src/formats/run-layout.js";
import { Ledger } from "../../src/run/ledger.js";
import { makeRunFixture, writeScript, type RunFixture } from "../run/fixture.js";
import { freePort, RedisServer, runCli, WorkerProcess } from "./fleet.js";

// A worker whose agent CLI says another version than the coordinator's run.json refuses the session job:
// the attempt's result says why. Two fake `claude` binaries of the same name, one on each side's PATH,
// differ only in the version they print; the refusal comes before either would be asked anything else.
let fx: RunFixture;
let redis: RedisServer;
let worker: WorkerProcess;
const key = { ANTHROPIC_API_KEY: "not-a-real-key" };

function fakeCli(dir: string, version: string): string {
  mkdirSync(dir, { recursive: true });
  writeScript(dir, "fake-claude", `echo "${version} (Claude Code)"`);
  return dir;
}

beforeAll(async () => {
  fx = makeRunFixture(1);
  redis = new RedisServer(await freePort(), join(fx.root, "redis"));
  await redis.start();
  const workerBin = fakeCli(join(fx.root, "worker-bin"), "2.0.0");
  // The worker process inherits this environment when it is spawned; the coordinator gets its own PATH below.
  const saved = { PATH: process.env.PATH, ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY };
  process.env.PATH = `${workerBin}:${saved.PATH ?? ""}`;
  process.env.ANTHROPIC_API_KEY = key.ANTHROPIC_API_KEY;
  try {
    worker = new WorkerProcess(fx.root, 1, redis.url, ["--pass-env", "ANTHROPIC_API_KEY", "--allow-unconfined"], 15);
  } finally {
    process.env.PATH = saved.PATH;
    if (saved.ANTHROPIC_API_KEY === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = saved.ANTHROPIC_API_KEY;
  }
}, 600_000);

afterAll(async () => {
  await worker?.stop();
  await redis?.stop();
});

describe("queue workers check the agent CLI's version", () => {
  it("refuses a session job whose agent CLI version differs from run.json, and the attempt's result says why", async () => {
    const coordBin = fakeCli(join(fx.root, "coordinator-bin"), "1.0.0");
    const out = join(fx.root, "run");
    const session = `${fx.sessions.pairs[0]!.id}.base`;
    const args = [
      "run",
      "--dataset",
      fx.datasetDir,
      "--sessions",
      fx.sessionsPath,
      "--session",
      session,
      "--agent",
      "claude-code",
      "--agent-opt",
      "bin=fake-claude",
      "--out",
      out,
      "--no-verify",
      "--sandbox",
      "none",
      "--queue",
      redis.url,
    ];
    const res = await runCli(args, {
      ...key,
      PATH: `${coordBin}:${process.env.PATH ?? ""}`,
      SWITCH_SWE_CACHE: join(fx.root, "coord-cache"),
    }).done;
    // Every attempt refused: the session failed on infrastructure faults (exit 1), not on the agent.
    expect(res.code, res.stderr).toBe(1);
    const config = JSON.parse(readFileSync(runFiles.config(out), "utf8")) as { agent: { harness: { version: string } } };
    expect(config.agent.harness.version).toBe("1.0.0");
    const ledger = Ledger.openReadonly(runFiles.ledger(out));
    const rows = ledger.attempts(session);
    ledger.close();
    expect(rows.length).toBeGreaterThanOrEqual(1);
    for (const r of rows) {
      expect(r.status).toBe("infra_fault");
      expect(r.detail).toMatch(/^refused by worker \S+: its claude-code CLI is version 2\.0\.0, the run's run\.json records 1\.0\.0/);
    }
  }, 600_000);
});
