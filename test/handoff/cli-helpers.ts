import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cliAsync, type CliResult } from "../helpers/cli.js";

export type { CliResult } from "../helpers/cli.js";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const pilotPath = join(repoRoot, "datasets", "handoff", "pilot.json");

/**
 * Runs the built CLI asynchronously: a test's scripted HTTP server lives in this process, so a
 * synchronous spawn would block the very event loop that must answer the child's requests.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return cliAsync(args, { env });
}

export { tempDir } from "../helpers/temp.js";
