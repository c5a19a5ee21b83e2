import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { dirname, join, resolve } from "node:path";
import { inputError } from "./errors.js";
import { processAlive } from "./process.js";

/** A lock file `name` and its own transient files (`.NAME.*`): never a sign that a directory is in use. */
export function isLockFileOf(lockName: string, name: string): boolean {
  return name === lockName || name.startsWith(`.${lockName}.`);
}

interface Holder {
  pid: number;
  host: string;
}

function readHolder(file: string): Holder | null {
  try {
    const [pidText, host] = readFileSync(file, "utf8").trim().split(" ");
    const pid = Number(pidText);
    return Number.isInteger(pid) && pid > 0 && host ? { pid, host } : null;
  } catch {
    return null;
  }
}

const alive = (h: Holder | null): h is Holder => h !== null && (h.host !== hostname() || processAlive(h.pid));

/**
 * One process per directory (a run's, a mining run's); `what` names the command in the refusal. The
 * lock file appears whole or not at all (written aside, then hard-linked into place, which fails if it
 * exists), so no one ever reads a half-made lock. A lock left
 * by a process that no longer exists (kill -9) is taken over by renaming it away first: of two processes
 * taking over the same stale lock, only one renames it, and one that renamed a live lock puts it back.
 * A live lock (or one from another host) is bad input. Returns the function that releases the lock.
 */
export function acquireDirLock(dir: string, lockName: string, what: string): () => void {
  const file = join(dir, lockName);
  const mine = join(dir, `.${lockName}.${process.pid}.new`);
  writeFileSync(mine, `${process.pid} ${hostname()}\n`);
  try {
    for (let tries = 0; tries < 3; tries++) {
      try {
        linkSync(mine, file);
        return () => rmSync(file, { force: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
      const holder = readHolder(file);
      if (alive(holder)) throw inUse(dir, what, holder);
      takeOverStale(dir, lockName, what, file);
    }
  } finally {
    rmSync(mine, { force: true });
  }
  throw inputError(dir, "", `cannot take the lock ${lockName}`);
}

function inUse(dir: string, what: string, holder: Holder) {
  return inputError(dir, "", `in use by another ${what} (pid ${holder.pid}${holder.host === hostname() ? "" : ` on ${holder.host}`})`);
}

/** Moves a stale lock out of the way; a lock that turned out live (taken meanwhile) is put back and reported. */
function takeOverStale(dir: string, lockName: string, what: string, file: string): void {
  const aside = join(dir, `.${lockName}.${process.pid}.stale`);
  try {
    renameSync(file, aside);
  } catch {
    return; // gone already: someone else moved it; try again
  }
  const holder = readHolder(aside);
  if (alive(holder)) {
    try {
      linkSync(aside, file);
    } catch {
      // another lock is in place by now: it is not ours to touch
    }
    rmSync(aside, { force: true });
    throw inUse(dir, what, holder);
  }
  rmSync(aside, { force: true });
}

export interface DirLockKind {
  /** The lock file's name in the directory (`run.lock`, `mine.lock`). */
  lockName: string;
  /** The command that holds it, for the refusal ("switch-swe run"). */
  what: string;
  /** What the directory is, for a failure to create it ("run directory"). */
  dirNoun: string;
}

export interface DirClaim {
  dir: string;
  /** Releases the lock (the work is over). */
  release: () => void;
  /**
   * The work never started: with `clear`, removes what it wrote (only for a directory that was empty
   * before), then releases the lock and removes the directories this claim created.
   */
  abandon: (clear: boolean) => void;
}

/**
 * Takes a directory before anything is read or written: creates it if needed and takes its lock
 * atomically. Of two commands on one directory exactly one gets here; the other fails on the lock having
 * changed nothing (a directory it created is empty and shared, and left to the winner).
 */
export function claimDir(path: string, kind: DirLockKind): DirClaim {
  const dir = resolve(path);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw inputError(dir, "", "exists and is not a directory");
  let created: string | undefined;
  try {
    created = mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw inputError(dir, "", `cannot create the ${kind.dirNoun} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let release: () => void;
  try {
    release = acquireDirLock(dir, kind.lockName, kind.what);
  } catch (e) {
    if (created !== undefined) removeEmptyUpTo(dir, created);
    throw e;
  }
  return {
    dir,
    release,
    abandon: (clear) => {
      if (clear)
        for (const name of readdirSync(dir))
          if (!isLockFileOf(kind.lockName, name)) rmSync(join(dir, name), { recursive: true, force: true });
      release();
      if (created !== undefined) removeEmptyUpTo(dir, created);
    },
  };
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
