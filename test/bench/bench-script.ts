import { spawn } from "node:child_process";
import { join } from "node:path";
import { packageRoot } from "../../src/core/package-paths.js";

export interface BenchResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs one benchmark of bench/ on the built code (`npm test` builds first) in its small configuration
 * (BENCH_SMALL=1), as `npm run bench:<name>` would, from the package root. Asynchronous, so that two
 * benchmarks of one file may run while vitest's own timers go on.
 */
export function runBench(script: string, args: string[] = [], timeoutMs = 300_000): Promise<BenchResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(packageRoot, "bench", script), ...args], {
      cwd: packageRoot,
      env: { ...process.env, BENCH_SMALL: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** What a failed benchmark said, for the assertion message. */
export const said = (r: BenchResult): string => `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
