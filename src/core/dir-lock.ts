import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
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
