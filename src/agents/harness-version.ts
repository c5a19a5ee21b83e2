import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../core/process.js";
import { agentEnv } from "./private-env.js";

/** The first version number in a `--version` output (`2.1.332 (Claude Code)`, `codex-cli 0.171.0`). */
export function versionIn(text: string): string | null {
  return /\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?/.exec(text)?.[0] ?? null;
}

/**
 * Asks a CLI for its version (`BIN --version`), with a throwaway HOME so that no user configuration is
 * read or written; null when it does not answer within a minute.
 */
export async function cliVersion(binary: string, args: readonly string[] = ["--version"]): Promise<string | null> {
  const home = mkdtempSync(join(tmpdir(), "switch-swe-version-"));
  try {
    const r = await runProcess(binary, args, { env: agentEnv(home, []), timeoutMs: 60_000, cwd: home });
    return r.code === 0 ? (versionIn(r.stdout) ?? versionIn(r.stderr)) : null;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
