import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { runFiles } from "../../src/formats/run-layout.js";
import { Ledger } from "../../src/run/ledger.js";
import { readTrajectory } from "../../src/formats/trajectory-file.js";
import { sessionId } from "../../src/formats/sessions.js";
import { cli } from "../helpers/cli.js";
import { makeRunFixture, running, type RunFixture } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

let fx: RunFixture;
let order: string[];

beforeAll(() => {
  fx = makeRunFixture(2);
  order = fx.sessions.pairs.flatMap((p) => [sessionId(p.id, "base"), sessionId(p.id, "switch")]);
});

/**
 * An agent that notes each request in the workspace; at request 2 of the second session it hangs once.
 * No variable names the session, so it counts sessions itself (first requests seen; sessions run one at a time).
 */
function hangingAgent(mark: string): string {
  return [
    `echo "request $SWITCH_SWE_REQUEST_INDEX" >> notes.txt`,
    `if [ "$SWITCH_SWE_REQUEST_INDEX" = 0 ] && [ "$SWITCH_SWE_TURN" = 0 ]; then echo s >> "${mark}.sessions"; fi`,
    `if [ "$(wc -l < "${mark}.sessions")" = 2 ] && [ "$SWITCH_SWE_REQUEST_INDEX" = 2 ] && [ ! -e "${mark}" ]; then touch "${mark}"; sleep 120; else sleep 0.05; fi`,
  ].join("\n");
}

function startRun(out: string, command: string, output: "ignore" | "pipe" = "ignore", env: NodeJS.ProcessEnv = {}): ChildProcess {
  const args = [
    "run",
    "--dataset",
    fx.datasetDir,
    "--sessions",
    fx.sessionsPath,
    "--agent",
    "command",
    "--agent-opt",
    `command=${command}`,
    "--out",
    out,
    "--no-verify",
    "--quiet",
    "--sandbox",
    "none",
  ];
  return spawn(process.execPath, [join(packageRoot, "dist", "cli", "main.js"), ...args], {
    env: { ...process.env, SWITCH_SWE_CACHE: fx.cache, ...env },
    stdio: ["ignore", output, output],
  });
}

async function waitFor(cond: () => boolean, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((res) =>
    child.exitCode !== null || child.signalCode !== null ? res(child.exitCode) : child.on("exit", (code) => res(code)),
  );

function attempts(out: string) {
  const ledger = Ledger.openReadonly(runFiles.ledger(out));
  try {
    return ledger.attempts();
  } finally {
    ledger.close();
  }
}

function snapshot(out: string, session: string) {
  const dir = runFiles.sessionDir(out, session);
  const files = [
    "session.json",
    "artifact.patch",
    "trajectory.jsonl",
    ...readdirSync(join(dir, "workspaces")).map((f) => `workspaces/${f}`),
  ];
  return Object.fromEntries(files.map((f) => [f, { mtime: statSync(join(dir, f)).mtimeMs, text: readFileSync(join(dir, f), "utf8") }]));
}

function expectComplete(out: string) {
  for (const s of order) {
    const summary = JSON.parse(readFileSync(runFiles.summary(out, s), "utf8")) as { status: string; finalized: boolean };
    expect(summary).toMatchObject({ status: "finished", finalized: true });
    expect(readFileSync(runFiles.artifact(out, s), "utf8")).toContain("+++ b/notes.txt");
    expect(readdirSync(join(runFiles.sessionDir(out, s), "workspaces")).sort()).toHaveLength(4);
    expect(readTrajectory(runFiles.trajectory(out, s)).at(-1)).toMatchObject({ type: "session_end", status: "finished" });
  }
  expect(existsSync(join(out, "run.lock"))).toBe(false);
}

describe.skipIf(missingTool)("a run killed mid-session", () => {
  it("kill -9, then --resume: finished sessions are kept as they are, the cut session restarts as attempt 2", async () => {
    const out = join(fx.root, "killed");
    const mark = join(fx.root, "hang-mark");
    const child = startRun(out, hangingAgent(mark));
    await waitFor(() => existsSync(mark));
    // The second session hangs at its third request; the first one finished.
    const cut = attempts(out);
    expect(cut.map((r) => [r.session, r.attempt, r.status])).toEqual([
      [order[0], 1, "finished"],
      [order[1], 1, "running"],
    ]);
    const cutTrajectory = readTrajectory(runFiles.trajectory(out, order[1]!));
    expect(cutTrajectory.filter((l) => l.type === "request_end")).toHaveLength(2);
    const hungAgent = Number(readFileSync(join(cut[1]!.work_dir, "agent", "pid"), "utf8"));
    expect(running(hungAgent)).toBe(true);

    child.kill("SIGKILL");
    await exited(child);
    const before = snapshot(out, order[0]!);
    expect(existsSync(runFiles.summary(out, order[1]!))).toBe(false);

    const r = cli(["run", "--out", out, "--resume", "--no-verify"], { env: { SWITCH_SWE_CACHE: fx.cache } });
    expect(r.stderr).toContain(`ended the agent process group ${hungAgent} left running by the cut-off attempt 1`);
    expect(r.code).toBe(0);
    expect(running(hungAgent)).toBe(false);

    expect(attempts(out).map((x) => [x.session, x.attempt, x.status, x.invocation])).toEqual([
      [order[0], 1, "finished", 1],
      [order[1], 1, "interrupted", 1],
      [order[1], 2, "finished", 2],
      [order[2], 1, "finished", 2],
      [order[3], 1, "finished", 2],
    ]);
    // The finished session was not run again: same files, same modification times.
    expect(snapshot(out, order[0]!)).toEqual(before);
    // The cut session restarted from clean workspaces: its notes list each request once, from attempt 2.
    expect(existsSync(cut[1]!.work_dir)).toBe(false);
    expect(readTrajectory(runFiles.trajectory(out, order[1]!))[0]).toMatchObject({ type: "session_start", attempt: 2 });
    const old = readTrajectory(join(runFiles.sessionDir(out, order[1]!), "attempts", "1", "trajectory.jsonl"));
    expect(old[0]).toMatchObject({ type: "session_start", attempt: 1 });
    expect(old.some((l) => l.type === "session_end")).toBe(false);
    const summary = JSON.parse(readFileSync(runFiles.summary(out, order[1]!), "utf8")) as {
      attempt: number;
      attempts: Array<{ attempt: number; status: string }>;
    };
    expect(summary.attempt).toBe(2);
    expect(summary.attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, "interrupted"],
      [2, "finished"],
    ]);
    const pair = fx.sessions.pairs[0]!;
    const focusWs = Object.entries(pair.workspaces).find(([, t]) => t === pair.focus)![0];
    const focusRequests = pair.schedules.switch.flatMap((s, i) => (s.workspace === focusWs ? [`+request ${i}`] : []));
    const added = readFileSync(runFiles.artifact(out, order[1]!), "utf8")
      .split("\n")
      .filter((l) => l.startsWith("+request"));
    expect(added).toEqual(focusRequests);
    expectComplete(out);
  });

  /** A run whose second session's agent hangs (the first finished): the child and the hung agent's pid. */
  async function hungRun(out: string, markName: string, output: "ignore" | "pipe"): Promise<{ child: ChildProcess; agentPid: number }> {
    const mark = join(fx.root, markName);
    const child = startRun(out, hangingAgent(mark), output);
    await waitFor(() => existsSync(mark));
    const hung = attempts(out).find((r) => r.status === "running")!;
    return { child, agentPid: Number(readFileSync(join(hung.work_dir, "agent", "pid"), "utf8")) };
  }

  /** Stopped as a stopped run must be: exit 130, its agent gone, the hung attempt recorded as interrupted. */
  async function expectStopped(out: string, child: ChildProcess, agentPid: number): Promise<void> {
    expect(await exited(child)).toBe(130);
    expect(running(agentPid)).toBe(false);
    expect(attempts(out).map((r) => [r.session, r.status])).toEqual([
      [order[0], "finished"],
      [order[1], "interrupted"],
    ]);
  }

  it("Ctrl-C stops the agents, records the attempt as interrupted, exits 130; --resume completes the run", async () => {
    const out = join(fx.root, "stopped");
    const { child, agentPid } = await hungRun(out, "hang-mark-2", "ignore");
    child.kill("SIGINT");
    await expectStopped(out, child, agentPid);
    expect(existsSync(join(out, "run.lock"))).toBe(false);
    const r = cli(["run", "--out", out, "--resume", "--no-verify", "--quiet"], { env: { SWITCH_SWE_CACHE: fx.cache } });
    expect(r.code).toBe(0);
    expectComplete(out);
  });

  // A large repository's five checkouts take a minute (sympy), longer than a scheduler waits between
  // SIGTERM and SIGKILL: the stop must not wait for them, nor start another session meanwhile.
  it("SIGTERM while a session's workspaces are checked out kills the checkout and starts no other session", async () => {
    const out = join(fx.root, "stopped-checkout");
    const shim = join(fx.root, "git-shim");
    const mark = join(fx.root, "checkout-mark");
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    mkdirSync(shim, { recursive: true });
    // The first workspace checkout (`git … -C DIR -c checkout.workers=8 reset …`, wherever the harness's own
    // `-c` settings put the subcommand) hangs; others pass through.
    writeFileSync(
      join(shim, "git"),
      `#!/bin/sh\ncase " $* " in *" checkout.workers=8 reset "*) if [ ! -e "${mark}" ]; then : > "${mark}"; sleep 60; : > "${mark}.done"; fi;; esac\nexec "${realGit}" "$@"\n`,
      { mode: 0o755 },
    );
    // A cache of its own: copy-on-write workspaces check out each base once per cache, so this run makes the first.
    const child = startRun(out, "sleep 0.05", "ignore", {
      PATH: `${shim}:${process.env.PATH}`,
      SWITCH_SWE_CACHE: join(fx.root, "cache-stopped-checkout"),
    });
    await waitFor(() => existsSync(mark));
    child.kill("SIGTERM");
    expect(await exited(child)).toBe(130);
    expect(existsSync(`${mark}.done`)).toBe(false);
    expect(attempts(out).map((r) => [r.session, r.status])).toEqual([[order[0], "interrupted"]]);
  });

  // A supervisor that stops reading before it stops the run (spawnSync's timeout does): the notice on
  // stderr meets a closed pipe, and that must not end the run with exit 0 and its agent still going.
  it("SIGTERM with its output pipes closed still stops the agents and exits 130", async () => {
    const out = join(fx.root, "stopped-unread");
    const { child, agentPid } = await hungRun(out, "hang-mark-3", "pipe");
    child.stdout!.destroy();
    child.stderr!.destroy();
    child.kill("SIGTERM");
    await expectStopped(out, child, agentPid);
  });
});
