import { existsSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "../core/process.js";
import type { InstalledRecord } from "../dataset/pinned-setup.js";

/**
 * What a set-up installed, read from its venv after the commands ran: the interpreter's full version
 * and `pip freeze` (pip, setuptools and wheel left out, as freeze does). Null when the set-up made no
 * venv; a string says why the venv could not be read (no pip in it, an interpreter that does not start).
 */
export async function readInstalled(dir: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<InstalledRecord | null | string> {
  const python = join(dir, "venv", "bin", "python");
  if (!existsSync(python)) return null;
  const version = await runProcess(python, ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], { env, timeoutMs });
  if (version.code !== 0) return `${python} does not start: ${(version.stderr || version.spawnError || "").trim().split("\n").pop() ?? ""}`;
  const freeze = await runProcess(python, ["-m", "pip", "freeze", "--disable-pip-version-check"], { env, timeoutMs });
  if (freeze.code !== 0) return `pip freeze failed in the venv: ${freeze.stderr.trim().split("\n").pop() ?? ""}`;
  const packages = freeze.stdout
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  return { python: version.stdout.trim(), packages };
}
