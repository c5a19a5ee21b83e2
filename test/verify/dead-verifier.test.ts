import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { cli } from "../helpers/cli.js";
import { running } from "../run/fixture.js";
import { tempDir, writeCalcDataset, writeRunDir } from "./fixture.js";

const cache = tempDir("switch-swe-cache-");
let root: string;
let runDir: string;
let scratchTmp: string;
let pidFile: string;

beforeAll(() => {
  root = tempDir();
  pidFile = join(root, "test-command.pid");
  // A test command that starts a child and waits for it: a verifier killed meanwhile leaves both behind.
  writeCalcDataset(root, {
    tasks: [
      { id: "fix-add" },
      { id: "hang", command: `sleep 600 & echo $! > ${pidFile}; wait; python3 -m pytest -p no:cacheprovider --junitxml={junit} {tests}` },
    ],
  });
  runDir = tempDir("switch-swe-run-");
  const reference = readFileSync(join(root, "tasks", "fix-add", "stage-1.patch"), "utf8");
  writeRunDir(runDir, root, { "fix-add.base": reference, "hang.base": reference });
  // The verifier's scratch goes under TMPDIR: a private one, so this test sees only its own.
  scratchTmp = join(root, "tmp");
  mkdirSync(scratchTmp);
});
afterAll(() => {
  for (const d of [cache, root, runDir]) rmSync(d, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("kill -9 of `verify`", () => {
  it("the next verify ends the test command the dead verifier left running and removes its scratch; cache info shows it", async () => {
    const env = { ...process.env, SWITCH_SWE_CACHE: cache, TMPDIR: scratchTmp };
    const verifier = spawn(
      process.execPath,
      [join(packageRoot, "dist", "cli", "main.js"), "verify", runDir, "--session", "hang.base", "--sandbox", "none"],
      { env, stdio: "ignore" },
    );
    const deadline = Date.now() + 300_000;
    while (!existsSync(pidFile) && Date.now() < deadline) await sleep(100);
    const orphan = Number(readFileSync(pidFile, "utf8").trim());
    expect(running(orphan)).toBe(true);

    const live = cli(["cache", "info"], { env });
    expect(live.code).toBe(0);
    expect(live.stdout).toMatch(
      new RegExp(`verifier scratch: 1 \\(.*\\)\\n  ${scratchTmp}/switch-swe-verifier-${verifier.pid}-\\w+  in use .* pid ${verifier.pid}`),
    );

    process.kill(verifier.pid!, "SIGKILL");
    await new Promise((r) => verifier.on("close", r));
    await sleep(500);
    // Nothing ends the test command on its own: it outlives its verifier.
    expect(running(orphan)).toBe(true);
    const stale = cli(["cache", "info"], { env });
    expect(stale.stdout).toMatch(
      /verifier scratch: 1 \(.*\), 1 left by a verifier that died \(removed by the next verify or run --resume\)/,
    );
    expect(stale.stdout).toMatch(/switch-swe-verifier-\S+\s+stale/);

    const next = cli(["verify", runDir, "--session", "fix-add.base", "--sandbox", "none"], { env });
    expect(next.code).toBe(0);
    expect(next.stderr).toMatch(
      /^verify: cleaned up after 1 verifier\(s\) that died: ended 1 process group\(s\) they left running \(\d+\), removed \S+switch-swe-verifier-/,
    );
    await sleep(200);
    expect(running(orphan)).toBe(false);
    expect(readdirSync(scratchTmp)).toEqual([]);
    const after = cli(["cache", "info"], { env });
    expect(after.stdout).toContain("verifier scratch: 0 (0.0 MB)\n");
  }, 600_000);
});
