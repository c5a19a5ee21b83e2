import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { inputError } from "../core/errors.js";
import { acquireRunLock, isLockFile } from "./run-lock.js";

export interface RunDirClaim {
  runDir: string;
  /** Releases the lock (the run is over). */
  release: () => void;
  /**
   * The run never started: with `clear`, removes what it wrote (only for a directory that was empty
   * before), then releases the lock and removes the directories this claim created.
   */
  abandon: (clear: boolean) => void;
}

/**
 * Takes the run directory before anything is read or written: creates it if needed and takes its lock
 * atomically (O_EXCL). Of two `run` commands on one directory exactly one gets here; the other fails on
 * the lock having changed nothing (a directory it created is empty and shared, and left to the winner).
 */
export function claimRunDir(out: string): RunDirClaim {
  const runDir = resolve(out);
  if (existsSync(runDir) && !statSync(runDir).isDirectory()) throw inputError(runDir, "", "exists and is not a directory");
  let created: string | undefined;
  try {
    created = mkdirSync(runDir, { recursive: true });
  } catch (e) {
    throw inputError(runDir, "", `cannot create the run directory (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let release: () => void;
  try {
    release = acquireRunLock(runDir);
  } catch (e) {
    if (created !== undefined) removeEmptyUpTo(runDir, created);
    throw e;
  }
  return {
    runDir,
    release,
    abandon: (clear) => {
      if (clear) for (const name of readdirSync(runDir)) if (!isLockFile(name)) rmSync(join(runDir, name), { recursive: true, force: true });
      release();
      if (created !== undefined) removeEmptyUpTo(runDir, created);
    },
  };
}

/** True when the directory holds nothing but the run lock (and the lock's transient files). */
export function emptyButLock(runDir: string): boolean {
  return readdirSync(runDir).every(isLockFile);
}

/** Removes `dir` and its parents up to `top` while they are empty (never anything with files in it). */
function removeEmptyUpTo(dir: string, top: string): void {
  for (let d = dir; ; d = dirname(d)) {
    try {
      rmdirSync(d);
    } catch {
      return;
    }
    if (d === top || dirname(d) === d) return;
  }
}
