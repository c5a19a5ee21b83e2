import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { cli } from "../helpers/cli.js";
import { makeRunFixture, type RunFixture } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

let fx: RunFixture;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  fx = makeRunFixture(1);
  env = { ...process.env, SWITCH_SWE_CACHE: fx.cache };
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `cond` (polling), at most `ms`; returns whether it held. */
async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (cond()) return true;
    await sleep(50);
  }
  return cond();
}

describe.skipIf(missingTool)("two `run` commands on one new --out", { timeout: 600_000 }, () => {
  it("the first takes the lock before reading anything; the second fails on it and changes nothing", async () => {
    const pair = fx.sessions.pairs[0]!.id;
    const out = join(fx.root, "race");
    // A sessions file that is a FIFO: the first run blocks reading it for as long as the test wants,
    // which is the slow-input window in which a second run used to slip in.
    const fifo = join(fx.root, "sessions.fifo");
    spawnSync("mkfifo", [fifo]);
    const args = (sessions: string, label: string) => [
      "run",
      "--dataset",
      fx.datasetDir,
      "--sessions",
      sessions,
      "--agent",
      "oracle",
      "--session",
      `${pair}.base`,
      "--label",
      label,
      "--out",
      out,
      "--no-verify",
      "--quiet",
    ];
    const first = spawn(process.execPath, [join(packageRoot, "dist", "cli", "main.js"), ...args(fifo, "first")], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let firstErr = "";
    first.stderr.on("data", (d: Buffer) => (firstErr += d.toString()));
    const firstExit = new Promise<number | null>((r) => first.on("close", (code) => r(code)));

    // Give the first run every chance to be blocked on the FIFO (with or without the lock).
    await waitFor(() => existsSync(join(out, "run.lock")), 5000);

    const second = cli(args(fx.sessionsPath, "second"), { env });
    expect(second.code).toBe(2);
    expect(second.stderr.trim().split("\n")).toEqual([`${out}: in use by another switch-swe run (pid ${first.pid})`]);
    // The loser wrote nothing: no run.json, no ledger, only the winner's lock.
    expect(readdirSync(out)).toEqual(["run.lock"]);

    writeFileSync(fifo, readFileSync(fx.sessionsPath));
    expect(await firstExit).toBe(0);
    expect(firstErr).toBe("");
    const config = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as { label: string };
    expect(config.label).toBe("first");
    expect(existsSync(join(out, "run.lock"))).toBe(false);
    expect(JSON.parse(readFileSync(join(out, "sessions", `${pair}.base`, "session.json"), "utf8"))).toMatchObject({ status: "finished" });
  });

  it("bad input on a new --out leaves no directory and no lock behind; an existing empty one stays", () => {
    const out = join(fx.root, "never", "made");
    const r = cli(["run", "--dataset", fx.datasetDir, "--sessions", join(fx.root, "missing.json"), "--agent", "nop", "--out", out], {
      env,
    });
    expect(r.code).toBe(2);
    expect(existsSync(join(fx.root, "never"))).toBe(false);
  });
});
