import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, cliPath } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { tempDir } from "../verify/fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const root = tempDir("switch-swe-mine-stop-");
const { repo, init, commit } = gitHistory(root, "calc");
const tmp = join(root, "tmp");
const out = join(root, "out");
// The miner's temporary directory is private to these tests, so that anything it leaves is seen.
const env = { ...process.env, SWITCH_SWE_CACHE: join(root, "cache"), TMPDIR: tmp };
const sleepy = "import time\n\n\ndef nap():\n    time.sleep(6)\n\n\n";

/** A chain of two steps on one module; every test sleeps, so a stop finds a test run under way. */
beforeAll(() => {
  mkdirSync(tmp, { recursive: true });
  init();
  commit("Initial layout", { "pkg/__init__.py": "", "pkg/calc.py": "def one():\n    return 1\n" });
  commit("calc: two", {
    "pkg/calc.py": "def one():\n    return 1\n\n\ndef two():\n    return 2\n",
    "tests/test_calc.py": `${sleepy}def test_two():\n    nap()\n    from pkg.calc import two\n    assert two() == 2\n`,
  });
  commit("calc: three", {
    "pkg/calc.py": "def one():\n    return 1\n\n\ndef two():\n    return 2\n\n\ndef three():\n    return 3\n",
    "tests/test_calc.py": `${sleepy}def test_two():\n    nap()\n    from pkg.calc import two\n    assert two() == 2\n\n\ndef test_three():\n    nap()\n    from pkg.calc import three\n    assert three() == 3\n`,
  });
});

const scratchDirs = () => readdirSync(tmp).filter((n) => n.startsWith("switch-swe-verifier-"));

/** The process groups of the test runs under way, once there are any (from the scratch's records). */
async function testGroups(exited: Promise<unknown>): Promise<{ dir: string; groups: number[] }> {
  const until = Date.now() + 180_000;
  let done = false;
  void exited.then(() => (done = true));
  for (;;) {
    if (done) throw new Error("tasks mine ended before a test run started");
    for (const name of scratchDirs()) {
      const groups = join(tmp, name, "groups");
      const ids = existsSync(groups) ? readdirSync(groups).map(Number) : [];
      // A test run, not one of the git commands before it.
      if (ids.some((g) => groupCommands(g).some((c) => c.includes("pytest-launcher")))) return { dir: join(tmp, name), groups: ids };
    }
    if (Date.now() > until) throw new Error("no test run started");
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The command lines of a group's running processes (a zombie runs nothing: this machine's init may not reap orphans). */
function groupCommands(pgid: number): string[] {
  return readdirSync("/proc").flatMap((pid) => {
    if (!/^\d+$/.test(pid)) return [];
    try {
      // pid (comm) state ppid pgrp ...: comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) !== pgid || state === "Z") return [];
      return [readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ")];
    } catch {
      return []; // ended while we looked
    }
  });
}

const groupRuns = (pgid: number) => groupCommands(pgid).length > 0;

/** The groups that still run a second after their end was asked for (SIGKILL is not instant). */
async function stillRunning(groups: number[]): Promise<number[]> {
  await new Promise((r) => setTimeout(r, 1000));
  return groups.filter(groupRuns);
}

function startMine(): { exited: Promise<{ code: number | null; stderr: string }>; kill: (sig: NodeJS.Signals) => void } {
  const child = spawn(process.execPath, [cliPath, "tasks", "mine", repo, "--out", out, "--runs", "1"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  child.stdout.resume();
  return { exited: new Promise((r) => child.on("close", (code) => r({ code, stderr }))), kill: (sig) => child.kill(sig) };
}

describe.skipIf(missingTool)("tasks mine stopped while its tests run", () => {
  it("SIGTERM ends the test runs under way, removes the scratch and exits 130, saying how to resume", { timeout: 300_000 }, async () => {
    const m = startMine();
    const { groups } = await testGroups(m.exited);
    m.kill("SIGTERM");
    const r = await m.exited;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(
      new RegExp(
        `SIGTERM: stopped; ended [1-9]\\d* process group\\(s\\) \\(test runs, git\\) and removed the scratch; every candidate decided so far is saved in ${out}: run the same command again to resume\\n$`,
      ),
    );
    expect(scratchDirs()).toEqual([]);
    expect(await stillRunning(groups)).toEqual([]);
    // Stopped before any candidate was decided, the run can still be resumed (the next test does).
    expect(existsSync(join(out, "mine-report.json"))).toBe(true);
  });

  it(
    "after kill -9 the next run ends the test runs left behind, removes their scratch and mines the candidate",
    { timeout: 300_000 },
    async () => {
      const m = startMine();
      const { dir, groups } = await testGroups(m.exited);
      m.kill("SIGKILL");
      await m.exited;
      // Nothing ran the miner's cleanup: its scratch and its sleeping test run are still there.
      expect(existsSync(dir)).toBe(true);
      const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "1"], { env });
      expect(r.stderr).toContain(`warning: cleaned up after 1 verifier(s) that died`);
      expect(r.stderr).toContain(`removed ${dir}`);
      expect(await stillRunning(groups)).toEqual([]);
      expect(r.stderr).toContain(`resuming ${out}: 0 mined and 0 rejected before, 1 left`);
      expect(r.stdout).toMatch(/1 candidate\(s\): 1 mined, 0 rejected; /);
      expect(r.code).toBe(0);
      expect(scratchDirs()).toEqual([]);
      const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as {
        tasks: Array<{ stages: Array<{ tests: string[] }> }>;
      };
      expect(manifest.tasks.map((t) => t.stages.map((s) => s.tests))).toEqual([
        [["tests/test_calc.py::test_two"], ["tests/test_calc.py::test_three"]],
      ]);
    },
  );
});
