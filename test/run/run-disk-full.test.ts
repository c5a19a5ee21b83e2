import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Ledger } from "../../src/run/ledger.js";
import { cli } from "../helpers/cli.js";
import { mountTmpfs, tmpfsUnavailable, unmountTmpfs } from "../helpers/tmpfs.js";
import { makeRunFixture, writeScript, type RunFixture } from "./fixture.js";

let fx: RunFixture;
let disk = "";

beforeAll(() => {
  if (tmpfsUnavailable) return;
  fx = makeRunFixture(1);
  disk = mountTmpfs(fx.root, 8 * 1024);
});
afterAll(() => {
  if (disk) unmountTmpfs(disk);
});

function attempts(out: string) {
  const ledger = Ledger.openReadonly(join(out, "ledger.sqlite"));
  try {
    return ledger.attempts().map((a) => `${a.session}#${a.attempt}:${a.status}`);
  } finally {
    ledger.close();
  }
}

describe.skipIf(tmpfsUnavailable !== null)("a full disk during `run`", { timeout: 600_000 }, () => {
  it("is an infrastructure fault of the session it hits: the run stops, says so in one line, and --resume finishes the rest", () => {
    const pair = fx.sessions.pairs[0]!.id;
    const out = join(disk, "run");
    const filler = join(disk, "filler");
    const once = join(fx.root, "filled-once");
    const counter = join(fx.root, "fill-count");
    const baseRequests = fx.sessions.pairs[0]!.schedules.base.length;
    // An agent that does nothing, except that during the switched session it fills the run's disk (once).
    const agent = writeScript(
      fx.root,
      "fill-agent.sh",
      // Nothing in the agent's environment names its session: it counts requests (the base session's come first).
      `n=$(( $(cat "${counter}" 2>/dev/null || echo 0) + 1 )); echo $n > "${counter}"\n` +
        `if [ $n -gt ${baseRequests} ] && [ ! -e "${once}" ]; then touch "${once}"; cat /dev/zero > "${filler}" 2>/dev/null; fi\nexit 0`,
    );
    const args = [
      "run",
      "--dataset",
      fx.datasetDir,
      "--sessions",
      fx.sessionsPath,
      "--agent",
      "command",
      "--agent-opt",
      `command=${agent}`,
      "--out",
      out,
      "--no-verify",
      "--quiet",
      "--sandbox",
      "none",
    ];
    const r = cli(args, { env: { SWITCH_SWE_CACHE: fx.cache } });
    expect(r.code).toBe(4);
    const lines = r.stderr.trim().split("\n");
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^switch-swe: ${out}: the disk is full \\(.*\\); session ${pair}\\.switch stopped as an infrastructure fault`),
    );
    expect(lines[0]).toContain(`switch-swe run --out ${out} --resume`);
    expect(r.stderr).not.toMatch(/\n\s+at |SqliteError|internal error/);
    // The base session finished before the disk filled up: kept, with its summary.
    const baseSummary = join(out, "sessions", `${pair}.base`, "session.json");
    expect(JSON.parse(readFileSync(baseSummary, "utf8"))).toMatchObject({ status: "finished" });
    const kept = { bytes: readFileSync(baseSummary), mtime: statSync(baseSummary).mtimeMs };
    expect(existsSync(join(out, "run.lock"))).toBe(false);
    expect(readdirSync(out).filter((n) => n.endsWith(".tmp"))).toEqual([]);

    rmSync(filler);
    const resumed = cli(["run", "--out", out, "--resume", "--no-verify", "--quiet"], { env: { SWITCH_SWE_CACHE: fx.cache } });
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(0);
    expect(readFileSync(baseSummary).equals(kept.bytes)).toBe(true);
    expect(statSync(baseSummary).mtimeMs).toBe(kept.mtime);
    expect(JSON.parse(readFileSync(join(out, "sessions", `${pair}.switch`, "session.json"), "utf8"))).toMatchObject({ status: "finished" });
    const rows = attempts(out);
    expect(rows.filter((a) => a.endsWith(":finished")).sort()).toEqual([`${pair}.base#1:finished`, `${pair}.switch#2:finished`]);
    // The attempt the disk stopped is recorded as an infrastructure fault (or, where the ledger could not
    // be written, marked cut off by the resume): never finished, never still running.
    expect(rows).toContainEqual(expect.stringMatching(new RegExp(`^${pair}\\.switch#1:(infra_fault|interrupted)$`)));
  });

  it("a checkout that fails on a nearly full disk stops the run the same way (git need not say 'No space left')", () => {
    const pair = fx.sessions.pairs[0]!.id;
    const out = join(disk, "run-nearly-full");
    const filler = join(disk, "filler-2");
    const once = join(fx.root, "nearly-filled-once");
    // During the base session, leave about 48 KB free: enough for that session's own records, not for
    // the five checkouts of the next session (the base session's stay: --keep-workspaces).
    const agent = writeScript(
      fx.root,
      "nearly-fill-agent.sh",
      `if [ ! -e "${once}" ]; then touch "${once}"; ` +
        `free=$(df -k --output=avail "${disk}" | tail -1); dd if=/dev/zero of="${filler}" bs=1k count=$((free - 48)) 2>/dev/null; fi\nexit 0`,
    );
    const args = [
      "run",
      "--dataset",
      fx.datasetDir,
      "--sessions",
      fx.sessionsPath,
      "--agent",
      "command",
      "--agent-opt",
      `command=${agent}`,
      "--out",
      out,
      "--no-verify",
      "--quiet",
      "--keep-workspaces",
      "--sandbox",
      "none",
    ];
    // The workspaces live under the cache (linked from the run directory): the cache is on the small disk too.
    const cache = join(disk, "cache-nearly-full");
    const r = cli(args, { env: { SWITCH_SWE_CACHE: cache } });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`the disk is full \\(.*\\); session ${pair}\\.switch stopped as an infrastructure fault`));
    // Not retried: one attempt of the switched session, and the base session finished.
    const rows = attempts(out);
    expect(rows.filter((a) => a.startsWith(`${pair}.switch#`))).toHaveLength(1);
    expect(rows).toContain(`${pair}.base#1:finished`);
    rmSync(filler);
    const resumed = cli(["run", "--out", out, "--resume", "--no-verify", "--quiet", "--keep-workspaces"], {
      env: { SWITCH_SWE_CACHE: cache },
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(attempts(out)).toContain(`${pair}.switch#2:finished`);
  });
});
