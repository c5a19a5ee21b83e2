import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mountsUnder } from "../../src/core/overlay.js";

const made: string[] = [];

/** A fresh directory under the system's temp dir, removed after the test file (see test/setup.ts). */
export function tempDir(prefix = "switch-swe-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every directory tempDir made in this test file; SWITCH_SWE_KEEP_TEST_TMP=1 keeps them to look at. */
export function removeTempDirs(): void {
  if (process.env.SWITCH_SWE_KEEP_TEST_TMP === "1") return;
  for (const dir of made.splice(0)) {
    // Copy-on-write workspaces a test left mounted (a session it stopped on purpose) are unmounted first.
    try {
      for (const m of mountsUnder(realpathSync(dir))) execFileSync("umount", ["-l", m]);
    } catch {
      // gone already
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}
