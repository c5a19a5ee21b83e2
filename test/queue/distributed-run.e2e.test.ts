import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleDatasetDir } from "../../src/core/package-paths.js";
import { runFiles } from "../../src/formats/run-layout.js";
import { Ledger } from "../../src/run/ledger.js";
import { sessionId, type SessionsFile } from "../../src/formats/sessions.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { freePort, RedisServer, runCli, WorkerProcess } from "./fleet.js";
import { writeScript } from "../run/fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap, redis-server: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "redis-server");
const missingCgroups = !missingTool && skipWithout(import.meta.url, "cgroups");

// A distributed run of part of the sample (two pairs, both conditions) on three worker processes with
// caches of their own, against a local run of the same sessions: same artifacts, same verdicts.
let root: string;
let redis: RedisServer;
let workers: WorkerProcess[] = [];
let sessionsPath: string;
let chosen: string[];
const secret = "coordinator-secret-4b1d";

beforeAll(async () => {
  root = tempDir("switch-swe-queue-");
  redis = new RedisServer(await freePort(), join(root, "redis"));
  await redis.start();
  const all = join(root, "all-sessions.json");
  expect(cli(["sessions", "build", sampleDatasetDir, "--seed", "0", "--out", all]).code).toBe(0);
  const file = JSON.parse(readFileSync(all, "utf8")) as SessionsFile;
  const pairs = [file.pairs.find((p) => p.repo === "ledgerkit")!, file.pairs.find((p) => p.repo === "textflow")!];
  sessionsPath = join(root, "sessions.json");
  writeFileSync(sessionsPath, JSON.stringify({ ...file, pairs }, null, 2));
  chosen = pairs.flatMap((p) => [sessionId(p.id, "base"), sessionId(p.id, "switch")]);
  workers = [1, 2, 3].map((n) => new WorkerProcess(root, n, redis.url, ["--allow-unconfined"]));
}, 300_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await redis?.stop();
});

function runArgs(agent: string, out: string, extra: string[] = []): string[] {
  return ["run", "--dataset", sampleDatasetDir, "--sessions", sessionsPath, "--agent", agent, "--out", out, ...extra];
}

function verdicts(out: string): Record<string, { resolved: boolean; tests: Record<string, string>; applied: boolean }> {
  return Object.fromEntries(
    chosen.map((s) => [
      s,
      JSON.parse(readFileSync(runFiles.verdict(out, s), "utf8")) as { resolved: boolean; tests: Record<string, string>; applied: boolean },
    ]),
  );
}

/** The files of a session that must not depend on where it ran. */
function artifacts(out: string, session: string): Record<string, string> {
  const dir = runFiles.sessionDir(out, session);
  const files = ["artifact.patch", ...readdirSync(join(dir, "workspaces")).map((f) => `workspaces/${f}`)];
  return Object.fromEntries(files.map((f) => [f, readFileSync(join(dir, f), "utf8")]));
}

function summaryFacts(out: string, session: string) {
  const s = JSON.parse(readFileSync(runFiles.summary(out, session), "utf8")) as Record<string, unknown>;
  // attempt/attempts: a worker starved of CPU for longer than its stall timeout loses its job, which then
  // runs again as attempt 2 (checked below as such); the artifacts must not depend on it.
  const { started_at: _a, ended_at: _b, duration_ms: _c, conversation: _d, attempt: _e, attempts: _f, ...rest } = s;
  return rest;
}

describe.skipIf(missingTool)("run --queue with three workers", () => {
  it("gives the local run's artifacts and verdicts (oracle resolves everything, nop nothing)", async () => {
    const remote = join(root, "remote-oracle");
    const r = runCli([...runArgs("oracle", remote, ["--queue", redis.url])], {
      SWITCH_SWE_CACHE: join(root, "coord-cache"),
      COORD_SECRET: secret,
    });
    const res = await r.done;
    expect(res.stderr).toContain("run done: 4 finished, 0 failed");
    expect(res.code).toBe(0);

    const local = join(root, "local-oracle");
    const l = cli(runArgs("oracle", local, ["--quiet", "--concurrency", "2"]), { env: { SWITCH_SWE_CACHE: join(root, "local-cache") } });
    expect(l.code).toBe(0);

    const rv = verdicts(remote);
    const lv = verdicts(local);
    for (const s of chosen) {
      expect(artifacts(remote, s)).toEqual(artifacts(local, s));
      expect(summaryFacts(remote, s)).toEqual(summaryFacts(local, s));
      expect(rv[s]!.resolved).toBe(true);
      expect(rv[s]!.tests).toEqual(lv[s]!.tests);
      expect(readFileSync(runFiles.trajectory(remote, s), "utf8").split("\n").length).toBe(
        readFileSync(runFiles.trajectory(local, s), "utf8").split("\n").length,
      );
    }
    // One attempt each, ledger owned by the coordinator; the work was spread over the workers.
    const ledger = Ledger.openReadonly(runFiles.ledger(remote));
    const rows = ledger.attempts();
    for (const s of chosen) expect(rows.filter((a) => a.session === s && a.status === "finished")).toHaveLength(1);
    for (const a of rows.filter((x) => x.status !== "finished"))
      expect([a.status, a.detail]).toEqual(["infra_fault", expect.stringContaining("stopped renewing its lock")]);
    ledger.close();
    expect(workers.filter((w) => /start \S+ attempt 1/.test(w.log())).length).toBeGreaterThanOrEqual(2);
    expect(workers.filter((w) => /verified /.test(w.log())).length).toBeGreaterThanOrEqual(1);
    // No result, trajectory or job of the run is left behind in Redis, and nothing carries the coordinator's environment.
    const keys = cli(["queue", "status", redis.url, "--json"]);
    expect(keys.code).toBe(0);
    expect(keys.stdout).not.toContain(secret);
    expect(JSON.parse(keys.stdout).workers).toHaveLength(3);
  }, 600_000);

  it("scores nop at zero through the queue", async () => {
    const remote = join(root, "remote-nop");
    const res = await runCli(runArgs("nop", remote, ["--queue", redis.url, "--quiet"]), { SWITCH_SWE_CACHE: join(root, "coord-cache") })
      .done;
    expect(res.code).toBe(0);
    const v = verdicts(remote);
    for (const s of chosen) expect(v[s]!.resolved).toBe(false);
    expect(existsSync(join(remote, "queue.json"))).toBe(true);
  }, 600_000);

  it("verify --queue verifies again on the workers and writes the verdict as verify does", async () => {
    const remote = join(root, "remote-oracle");
    const s = chosen[0]!;
    const before = readFileSync(runFiles.verdict(remote, s), "utf8");
    const kept = cli(["verify", remote, "--queue", redis.url]);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain(
      `${chosen.length} session(s): ${chosen.length} resolved, 0 unresolved, 0 infrastructure fault(s); 0 verified, ${chosen.length} kept`,
    );
    const again = cli(["verify", remote, "--queue", redis.url, "--session", s, "--force"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("1 session(s): 1 resolved, 0 unresolved, 0 infrastructure fault(s); 1 verified, 0 kept");
    const after = JSON.parse(readFileSync(runFiles.verdict(remote, s), "utf8")) as { resolved: boolean; tests: unknown; log: string };
    expect(after.tests).toEqual(JSON.parse(before).tests);
    expect(after.log).toBe(`sessions/${s}/verify.log`);
    expect(readFileSync(runFiles.verifyLog(remote, s), "utf8")).toContain(`verification of ${s}`);
  }, 600_000);

  it("verify --queue refuses an artifact over --max-artifact-mb unread, as a local verify does, without a job", async () => {
    const remote = join(root, "remote-nop");
    const s = chosen[1]!;
    // 2 MB of a well-formed patch: over a 1 MB limit, so it is neither read nor sent to a worker.
    const line = `+${"x".repeat(1023)}\n`;
    writeFileSync(
      runFiles.artifact(remote, s),
      `diff --git a/big.txt b/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,2048 @@\n${line.repeat(2048)}`,
    );
    const jobsBefore = workers.map((w) => w.log().split(`verified ${s}`).length).reduce((a, b) => a + b, 0);
    const r = cli(["verify", remote, "--queue", redis.url, "--session", s, "--max-artifact-mb", "1", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const v = JSON.parse(readFileSync(runFiles.verdict(remote, s), "utf8")) as {
      applied: boolean;
      resolved: boolean;
      infra_fault: boolean;
      apply_error: string;
      seal?: string;
    };
    expect(v).toMatchObject({ applied: false, resolved: false, infra_fault: false });
    expect(v.apply_error).toMatch(/^the artifact is 2\.0 MB, over the limit of 1\.0 MB \(--max-artifact-mb\); it was not read$/);
    expect(readFileSync(runFiles.verifyLog(remote, s), "utf8")).toContain("not applied: the artifact is 2.0 MB");
    expect(v.seal).toMatch(/^[0-9a-f]{64}$/);
    expect(workers.map((w) => w.log().split(`verified ${s}`).length).reduce((a, b) => a + b, 0)).toBe(jobsBefore);
    // The refusal is sealed like any verdict (a later verify keeps nothing refused for its size: it checks again).
    const again = cli(["verify", remote, "--queue", redis.url, "--session", s, "--max-artifact-mb", "1"]);
    expect(again.stdout).toContain("1 session(s): 0 resolved, 1 unresolved, 0 infrastructure fault(s); 1 verified, 0 kept");
  }, 600_000);

  it.skipIf(missingCgroups)(
    "workers enforce the run's --limits on their own machine; verify --queue passes --limits and --sandbox",
    async () => {
      const remote = join(root, "remote-limits");
      const s = chosen[0]!;
      const bomb = writeScript(
        root,
        "fork-bomb.sh",
        `[ "$SWITCH_SWE_REQUEST_INDEX" = 0 ] || exit 0\npython3 -c '
import os, sys, time
n = 0
for i in range(300):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    n += 1
print(f"forked {n} children", file=sys.stderr)
'`,
      );
      const res = await runCli(
        runArgs("command", remote, [
          "--queue",
          redis.url,
          "--quiet",
          "--no-verify",
          "--session",
          s,
          "--agent-opt",
          `command=sh ${bomb}`,
          "--limits",
          "pids=40",
        ]),
        {},
      ).done;
      expect(res.code, res.stderr).toBe(0);
      const runJson = JSON.parse(readFileSync(join(remote, "run.json"), "utf8")) as { limits: Record<string, { status: string }> };
      expect(runJson.limits).toMatchObject({
        requested: "cpus=4,memory=16g,pids=40",
        pids: { status: "per_worker" },
        memory: { status: "per_worker" },
      });
      const stderr = readFileSync(join(runFiles.sessionDir(remote, s), "attempts", "1", "agent", "stderr.log"), "utf8");
      const forked = Number(/forked (\d+) children/.exec(stderr)?.[1] ?? "NaN");
      expect(forked, stderr).toBeLessThan(40);
      expect(readFileSync(runFiles.trajectory(remote, s), "utf8")).not.toContain("is not enforced on this machine");

      const verified = cli([
        "verify",
        join(root, "remote-oracle"),
        "--queue",
        redis.url,
        "--session",
        s,
        "--force",
        "--limits",
        "pids=77,memory=1g",
        "--sandbox",
        "none",
      ]);
      expect(verified.code, verified.stderr).toBe(0);
      const log = readFileSync(runFiles.verifyLog(join(root, "remote-oracle"), s), "utf8");
      expect(log).toMatch(/^limits: cpus=4 enforced \(.*\); memory=1g enforced \(.*\); pids=77 enforced/m);
      expect(log).toMatch(/^sandbox: none \(the test run runs as the caller\)$/m);
    },
    600_000,
  );

  it("refuses bad queue URLs and unreachable queues as bad input, without printing a password", async () => {
    const bad = cli(runArgs("nop", join(root, "bad"), ["--queue", "http://x"]));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--queue: unsupported scheme "http"');
    const port = await freePort();
    const down = cli(["queue", "status", `redis://:hunter2@127.0.0.1:${port}/0`]);
    expect(down.code).toBe(2);
    expect(down.stderr).toContain(`cannot reach redis://:***@127.0.0.1:${port}/0`);
    expect(down.stderr).not.toContain("hunter2");
  }, 600_000);
});
