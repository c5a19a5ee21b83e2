import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { packageRoot } from "../../src/core/package-paths.js";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (`npm test` builds first) as a user would. */
export function cli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [join(packageRoot, "dist", "cli", "main.js"), ...args], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    encoding: "utf8",
    input: opts.input,
    timeout: 600_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
