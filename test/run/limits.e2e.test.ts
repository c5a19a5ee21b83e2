import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { skipWithout } from "../helpers/tools.js";
import { makeRunFixture, writeScript, type RunFixture } from "./fixture.js";

/**
 * `run --limits` through the real CLI: the session's processes run in one cgroup, a fork bomb meets
 * pids.max and the run goes on, a process that allocates past the memory limit is killed by the
 * kernel and the request says so, run.json records what was enforced.
 */

// Needs bwrap and writable cgroups: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "cgroups");

let fx: RunFixture;
let env: NodeJS.ProcessEnv;
let session: string;

beforeAll(() => {
  fx = makeRunFixture(1);
  env = { SWITCH_SWE_CACHE: fx.cache };
  session = `${fx.sessions.pairs[0]!.focus}.base`;
});

interface Line {
  type: string;
  index?: number;
  outcome?: string;
  detail?: string;
}

/** Runs the one base session with `script` as the agent (its first request only does the work). */
function runWith(name: string, script: string, extra: string[]) {
  const file = writeScript(fx.root, `${name}.sh`, `if [ "$SWITCH_SWE_REQUEST_INDEX" = 0 ]; then\n${script}\nfi\nexit 0`);
  const out = join(fx.root, name);
  const r = cli(
    [
      "run",
      "--dataset",
      fx.datasetDir,
      "--sessions",
      fx.sessionsPath,
      "--session",
      session,
      "--out",
      out,
      "--agent",
      "command",
      "--agent-opt",
      `command=sh ${file}`,
      "--no-verify",
      "--quiet",
      ...extra,
    ],
    { env },
  );
  const lines = readFileSync(join(out, "sessions", session, "trajectory.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);
  const summary = JSON.parse(readFileSync(join(out, "sessions", session, "session.json"), "utf8")) as {
    status: string;
    requests: { scheduled: number; delivered: number };
  };
  const runJson = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as { limits: Record<string, unknown> & { requested: string } };
  const stderrLog = join(out, "sessions", session, "attempts", "1", "agent", "stderr.log");
  return { r, out, lines, summary, runJson, stderr: existsSync(stderrLog) ? readFileSync(stderrLog, "utf8") : "" };
}

const forkBomb = `python3 - <<'EOF'
import os, sys, time
n = 0
for i in range(300):
    try:
        pid = os.fork()
    except OSError as e:
        print(f"fork failed after {n} children: {e.strerror}", file=sys.stderr)
        break
    if pid == 0:
        time.sleep(120)
        os._exit(0)
    n += 1
else:
    print(f"forked all {n} children", file=sys.stderr)
EOF`;

describe.skipIf(missingTool)("run --limits (cgroups)", () => {
  it("with pids=64 a fork bomb fails inside the sandbox and the session goes on to its end", () => {
    const x = runWith("forks", forkBomb, ["--limits", "pids=64"]);
    expect(x.r.code, x.r.stderr).toBe(0);
    const m = /fork failed after (\d+) children/.exec(x.stderr);
    expect(m, x.stderr).not.toBeNull();
    expect(Number(m![1])).toBeLessThan(64);
    expect(x.summary.status).toBe("finished");
    expect(x.summary.requests.delivered).toBe(x.summary.requests.scheduled);
    expect(x.runJson.limits).toMatchObject({
      requested: "cpus=4,memory=16g,pids=64",
      cpus: { limit: "4", status: "enforced" },
      memory: { limit: "16g", status: "enforced" },
      pids: { limit: "64", status: "enforced" },
    });
    // Other limits on --resume would make a different run: refused, naming the field.
    const again = cli(["run", "--out", x.out, "--resume", "--limits", "pids=128", "--no-verify", "--quiet"], { env });
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toMatch(
      /run\.json: limits\.requested: the run was started with "cpus=4,memory=16g,pids=64", --limits now gives "cpus=4,memory=16g,pids=128"/,
    );
    // `verify` without --limits confines each test run as the run was confined, not by the default limits.
    const verified = cli(["verify", x.out, "--session", session], { env });
    expect(verified.code, verified.stderr).toBe(0);
    expect(readFileSync(join(x.out, "sessions", session, "verify.log"), "utf8")).toMatch(/^limits: .*pids=64 enforced/m);
  }, 120_000);

  it("with memory=64m a python that allocates 300 MB is killed by the kernel, the request says out of memory, the session goes on (also unsandboxed)", () => {
    const x = runWith("oom", `python3 -c "b = b'x' * (300 * 1024 * 1024); print('survived')"`, [
      "--limits",
      "memory=64m,cpus=1",
      "--sandbox",
      "none",
    ]);
    expect(x.r.code, x.r.stderr).toBe(0);
    const first = x.lines.find((l) => l.type === "request_end" && l.index === 0)!;
    expect(first.detail).toMatch(/^out of memory: the memory limit \(64m\) was reached; the kernel killed 1 process of the session/);
    expect(x.lines.filter((l) => l.type === "request_end" && l.index !== 0).every((l) => l.detail === undefined)).toBe(true);
    expect(x.stderr).not.toMatch(/survived/);
    expect(x.summary.status).toBe("finished");
    expect(x.summary.requests.delivered).toBe(x.summary.requests.scheduled);
    expect(x.runJson.limits).toMatchObject({ requested: "cpus=1,memory=64m,pids=1024", memory: { status: "enforced" } });
  }, 120_000);

  it("--limits none records every resource as not limited; a bad spec is exit 2 with one line and no run directory", () => {
    const x = runWith("none", "true", ["--limits", "none"]);
    expect(x.r.code, x.r.stderr).toBe(0);
    expect(x.runJson.limits).toEqual({
      requested: "none",
      cpus: { limit: null, status: "not_enforced", detail: "not limited (--limits)" },
      memory: { limit: null, status: "not_enforced", detail: "not limited (--limits)" },
      pids: { limit: null, status: "not_enforced", detail: "not limited (--limits)" },
    });
    const out = join(fx.root, "bad");
    const bad = cli(
      ["run", "--dataset", fx.datasetDir, "--sessions", fx.sessionsPath, "--out", out, "--agent", "nop", "--limits", "memory=16q"],
      { env },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe("--limits: memory=16q: not a size (e.g. 16g, 512m)");
    expect(existsSync(out)).toBe(false);
  }, 120_000);
});
