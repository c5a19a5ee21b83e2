import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { claudePackage } from "../../src/agents/claude-code.js";

/**
 * Claude Code for the tests that run it, installed on first use into a cache of its own: it is not a
 * devDependency because its wrapper package declares Node 22 (its CLI is a native binary that runs on
 * any Node), and `npm ci` on the Node 20 the README names must install without a warning.
 */
export function installedClaude(): string {
  const dir = join(
    process.env.SWITCH_SWE_TEST_CLIS ?? join(homedir(), ".cache", "switch-swe-test-clis"),
    `claude-code-${claudePackage.version}`,
  );
  const bin = join(dir, "node_modules", ".bin", claudePackage.command);
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const r = spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      dir,
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      `${claudePackage.npm}@${claudePackage.version}`,
    ],
    {
      encoding: "utf8",
      timeout: 15 * 60_000,
    },
  );
  if (r.status !== 0 || !existsSync(bin))
    throw new Error(
      `could not install ${claudePackage.npm}@${claudePackage.version} into ${dir}: ${r.error?.message ?? r.stderr.trim().slice(-500)}`,
    );
  return bin;
}
