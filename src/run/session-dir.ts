import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../core/digest.js";

/**
 * Where an attempt's five workspaces live: RUN_DIR/work/<opaque id>/wNN. The id is a hash of the run's
 * creation time, the session id and the attempt, so the paths an agent sees name no task, no condition
 * and no role (the ledger records the path of every attempt).
 */
export function attemptWorkDir(runDir: string, runCreatedAt: string, session: string, attempt: number): string {
  const id = sha256(`${runCreatedAt}\0${session}\0${attempt}`).slice(0, 12);
  return join(runDir, "work", id);
}

/** RUN_DIR/sessions/<session>/attempts/<N>: agent logs of attempt N, and its trajectory once superseded. */
export function attemptLogDir(sessionDir: string, attempt: number): string {
  return join(sessionDir, "attempts", String(attempt));
}

/** Results of an attempt that a new attempt replaces (the verifier's too, since the artifact changes). */
const replacedFiles = ["artifact.patch", "checkout.patch", "submission.raw", "workspaces", "session.json", "verdict.json", "verify.log"];

function attemptOf(trajectoryFile: string): number | null {
  try {
    const first = readFileSync(trajectoryFile, "utf8").split("\n", 1)[0] ?? "";
    const n = (JSON.parse(first) as { attempt?: unknown }).attempt;
    return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

/**
 * Makes a session directory ready for a new attempt: the previous attempt's trajectory is kept under
 * attempts/<N>/trajectory.jsonl (nothing is lost), its artifacts are removed so nothing stale looks current.
 */
export function archivePreviousAttempt(sessionDir: string): void {
  mkdirSync(sessionDir, { recursive: true });
  const trajectory = join(sessionDir, "trajectory.jsonl");
  if (existsSync(trajectory)) {
    const n = attemptOf(trajectory);
    const dir = n === null ? join(sessionDir, "attempts", `unknown-${Date.now()}`) : attemptLogDir(sessionDir, n);
    mkdirSync(dir, { recursive: true });
    renameSync(trajectory, join(dir, "trajectory.jsonl"));
  }
  for (const f of replacedFiles) rmSync(join(sessionDir, f), { recursive: true, force: true });
}
