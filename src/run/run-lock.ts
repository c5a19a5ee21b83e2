import { acquireDirLock, isLockFileOf } from "../core/dir-lock.js";

export const runLockName = "run.lock";

/** Names of the run lock's own files (`run.lock`, `.run.lock.*`): never a sign that a directory is in use. */
export function isLockFile(name: string): boolean {
  return isLockFileOf(runLockName, name);
}

/** One `run` per run directory (src/core/dir-lock.ts); returns the function that releases the lock. */
export function acquireRunLock(runDir: string): () => void {
  return acquireDirLock(runDir, runLockName, "switch-swe run");
}
