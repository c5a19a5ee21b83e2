import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../../core/digest.js";

/** The version prefix of datasets built by `handoff from-run`; the run's fingerprint follows the `+`. */
export const FROM_RUN_VERSION = "from-run-1";

/**
 * A short fingerprint of a run directory: its run.json's identity (creation time, label, agent, the
 * sessions file's sha256, the dataset). A resumed run keeps it; another run, even of the same
 * sessions, has another. Null when the directory has no readable run.json.
 */
export function runFingerprint(runDir: string): string | null {
  const file = join(runDir, "run.json");
  if (!existsSync(file)) return null;
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
  const sessions = config.sessions_file as { sha256?: unknown } | undefined;
  const identity = [config.created_at, config.label, config.agent, sessions?.sha256, config.dataset, config.seed];
  return sha256(JSON.stringify(identity)).slice(0, 16);
}

/** The dataset version `handoff from-run` gives the cases of a run: `from-run-1+<fingerprint>`. */
export function fromRunVersion(runDir: string): string {
  const fp = runFingerprint(runDir);
  return fp ? `${FROM_RUN_VERSION}+${fp}` : FROM_RUN_VERSION;
}
