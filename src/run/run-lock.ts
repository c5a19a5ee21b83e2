import { acquireDirLock, isLockFileOf, type DirLockKind } from "../core/dir-lock.js";

export const runLockName = "run.lock";

export const runLockKind: DirLockKind = { lockName: runLockName, what: "switch-swe run", dirNoun: "run directory" };

/** Names of the run lock's own files (`run.lock`, `.run.lock.*`): never a sign that a directory is in use. */
export function isLockFile(name: string): boolean {
  return isLockFileOf(runLockName, name);
}

/** One `run` per run directory (src/core/dir-lock.ts); returns the function that releases the lock. */
export function acquireRunLock(runDir: string): () => void {
  return acquireDirLock(runDir, runLockKind.lockName, runLockKind.what);
}
