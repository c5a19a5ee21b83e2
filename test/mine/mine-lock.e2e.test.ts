import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { tempDir } from "../verify/fixture.js";

const root = tempDir("switch-swe-mine-lock-");
const { repo, init, commit } = gitHistory(root, "lock-repo");
/** A pid that no process has: one above the kernel's maximum. */
const deadPid = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8").trim()) + 1;
// A live process of this host that is not a miner: what holds the lock is all that counts.
const holder = spawn("sleep", ["600"], { stdio: "ignore" });

beforeAll(() => {
  init();
  commit("Initial layout", { "pkg/__init__.py": "", "pkg/ops.py": "def add(a, b):\n    return a + b\n" });
});
afterAll(() => {
  holder.kill("SIGKILL");
});

describe("tasks mine takes its --out for itself", () => {
  it("refuses a directory another miner holds, in one line, and leaves it as it was", { timeout: 120_000 }, () => {
    const out = join(root, "held");
    mkdirSync(out);
    writeFileSync(join(out, "mine.lock"), `${holder.pid} ${hostname()}\n`);
    writeFileSync(join(out, "mine-report.json"), "{}");
    const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "1"], { env: { SWITCH_SWE_CACHE: join(root, "cache") } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`${out}: in use by another tasks mine (pid ${holder.pid})\n`);
    expect(readdirSync(out).sort()).toEqual(["mine-report.json", "mine.lock"]);
    expect(readFileSync(join(out, "mine-report.json"), "utf8")).toBe("{}");
  });

  it("takes over the lock of a miner that is gone, mines, and leaves no lock behind", { timeout: 120_000 }, () => {
    const out = join(root, "stale");
    mkdirSync(out);
    writeFileSync(join(out, "mine.lock"), `${deadPid} ${hostname()}\n`);
    const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "1"], { env: { SWITCH_SWE_CACHE: join(root, "cache") } });
    expect(r.stdout).toMatch(/0 candidate\(s\): 0 mined, 0 rejected; /);
    expect(existsSync(join(out, "mine-report.json"))).toBe(true);
    expect(readdirSync(out)).not.toContain("mine.lock");
  });

  it("a refused run leaves no directory it made (parents included)", { timeout: 120_000 }, () => {
    const out = join(root, "new", "out");
    const r = cli(["tasks", "mine", join(root, "no-such-repo"), "--out", out], { env: { SWITCH_SWE_CACHE: join(root, "cache") } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("repository not found");
    expect(existsSync(join(root, "new"))).toBe(false);
  });
});
