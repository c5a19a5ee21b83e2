import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset, taskById } from "../../src/dataset/load.js";
import { verifyArtifact } from "../../src/verify/verify-artifact.js";
import { calcRepo, diffAgainst, tempDir, writeCalcDataset, writeFiles } from "./fixture.js";
import { noneBackend } from "../../src/confine/none.js";

const cache = tempDir("switch-swe-cache-");
const scratch = tempDir();
const pidFile = join(scratch, "pids.txt");

beforeAll(() => {
  process.env.SWITCH_SWE_CACHE = cache;
});
afterAll(() => {
  rmSync(cache, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** Gone = no such process, or a zombie waiting to be reaped (it runs nothing). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

describe("the deadline", () => {
  it("kills a hanging test and every child it spawned; the required test is `timeout`", async () => {
    const hang = [
      "import os, subprocess, time",
      "",
      "",
      "def test_hang():",
      "    kids = [subprocess.Popen(['sleep', '300']) for _ in range(2)]",
      "    # one child that ignores SIGTERM, so only the SIGKILL of the group ends it",
      "    kids.append(subprocess.Popen(['python3', '-c', 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)']))",
      "    # a grandchild behind a shell",
      "    kids.append(subprocess.Popen(['sh', '-c', 'sleep 300 & echo $! >> " + pidFile + "; wait']))",
      "    with open(" + JSON.stringify(pidFile) + ", 'a') as f:",
      "        f.write('\\n'.join(str(p) for p in [os.getpid()] + [k.pid for k in kids]) + '\\n')",
      "    time.sleep(300)",
      "",
    ].join("\n");
    const testsPatch = diffAgainst(calcRepo(), (d) => writeFiles(d, { "tests/test_hang.py": hang }));
    const root = writeCalcDataset(tempDir(), {
      tasks: [{ id: "hang", f2p: ["tests/test_hang.py::test_hang"], p2p: ["tests/test_ops.py::test_mul"], timeout_s: 4, testsPatch }],
    });
    const dataset = loadDataset(root);
    const started = Date.now();
    // Unsandboxed: the process-group kill is what is tested here (the sandbox's PID namespace is tested with the attacks).
    const v = await verifyArtifact({
      dataset,
      task: taskById(dataset).get("hang")!,
      artifactText: "",
      workRoot: join(scratch, "w"),
      logFile: join(scratch, "log"),
      confine: noneBackend,
    });
    const elapsed = Date.now() - started;
    expect(v.timed_out).toBe(true);
    expect(v.tests["tests/test_hang.py::test_hang"]).toBe("timeout");
    // Reported only in pytest's end-of-run summary, which a killed run never prints.
    expect(v.tests["tests/test_ops.py::test_mul"]).toBe("timeout");
    expect(v.resolved).toBe(false);
    expect(v.infra_fault).toBe(false);
    expect(v.attempts).toBe(1);
    expect(elapsed).toBeLessThan(30_000);
    const pids = readFileSync(pidFile, "utf8").split("\n").filter(Boolean).map(Number);
    expect(pids.length).toBe(6);
    await new Promise((r) => setTimeout(r, 300));
    expect(pids.filter(alive)).toEqual([]);
    rmSync(root, { recursive: true, force: true });
  });
});
