import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { packageRoot } from "../../src/core/package-paths.js";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** Deadline of the CLI process (default 10 min). */
  timeoutMs?: number;
}

/** The built CLI (`npm test` builds first). */
export const cliPath = join(packageRoot, "dist", "cli", "main.js");

/** Runs the built CLI as a user would and waits for it. */
export function cli(args: string[], opts: CliOptions = {}): CliResult {
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    encoding: "utf8",
    input: opts.input,
    timeout: opts.timeoutMs ?? 600_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Runs the built CLI without blocking this process: needed when the test serves something the CLI calls
 * (a scripted model server), since a synchronous spawn would block the event loop that must answer.
 */
export function cliAsync(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: [opts.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
    if (opts.input !== undefined) child.stdin!.end(opts.input);
  });
}
