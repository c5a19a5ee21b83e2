import { readdirSync } from "node:fs";
import { claimDir, type DirClaim } from "../core/dir-lock.js";
import { isLockFile, runLockKind } from "./run-lock.js";

export interface RunDirClaim extends DirClaim {
  runDir: string;
}

/** Takes the run directory before anything is read or written (src/core/dir-lock.ts, `claimDir`). */
export function claimRunDir(out: string): RunDirClaim {
  const claim = claimDir(out, runLockKind);
  return { ...claim, runDir: claim.dir };
}

/** True when the directory holds nothing but the run lock (and the lock's transient files). */
export function emptyButLock(runDir: string): boolean {
  return readdirSync(runDir).every(isLockFile);
}
