import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive, processStartTime, watchProcessGroups } from "../core/process.js";

/**
 * The verifier's scratch space: one directory per `verify` (or `tasks mine`, whose test runs are the
 * verifier's) invocation under the system's temporary
 * directory, `switch-swe-verifier-<pid>-XXXXXX/`, holding an `owner` file (pid, host, the process's start
 * time), one sub-directory per verification (checkouts, reports) and `groups/<pgid>`, one file per
 * process group the verifier has running (test commands, set-ups, git), holding the group leader's start
 * time. When the verifier dies (kill -9), the next `verify` or `run --resume` finds the directory
 * without a living owner, ends the groups it left running and removes it.
 */
export const scratchPrefix = "switch-swe-verifier-";

interface Owner {
  pid: number;
  host: string;
  start: string | null;
}

export interface Scratch {
  root: string;
  /** A new, empty directory for one verification. */
  workDir(label: string): string;
  /** Stops recording process groups and removes the whole scratch directory. */
  close(): void;
}

function scratchBase(): string {
  return tmpdir();
}

/** This process's open scratch directories, so that a signal handler can end and remove them. */
const openRoots = new Set<string>();

/** Creates this invocation's scratch directory and records the process groups started from now on. */
export function openScratch(): Scratch {
  const root = mkdtempSync(join(scratchBase(), `${scratchPrefix}${process.pid}-`));
  const owner: Owner = { pid: process.pid, host: hostname(), start: processStartTime(process.pid) };
  writeFileSync(join(root, "owner"), `${JSON.stringify(owner)}\n`);
  const groups = join(root, "groups");
  mkdirSync(groups);
  openRoots.add(root);
  const stopWatching = watchProcessGroups({
    // Best effort: recording must never fail a verification (a full disk, say).
    started: (pgid) => {
      try {
        writeFileSync(join(groups, String(pgid)), processStartTime(pgid) ?? "");
      } catch {
        // not recorded: such a group is only ended by its own deadline
      }
    },
    ended: (pgid) => rmSync(join(groups, String(pgid)), { force: true }),
  });
  return {
    root,
    workDir: (label) => mkdtempSync(join(root, `${label.replace(/[^A-Za-z0-9._-]/g, "_")}-`)),
    close: () => {
      stopWatching();
      openRoots.delete(root);
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

function readOwner(dir: string): Owner | null {
  try {
    const o = JSON.parse(readFileSync(join(dir, "owner"), "utf8")) as Partial<Owner>;
    return typeof o.pid === "number" && typeof o.host === "string" ? { pid: o.pid, host: o.host, start: o.start ?? null } : null;
  } catch {
    return null;
  }
}

/** Whether the owner of a scratch directory still runs: same host, pid alive and the same process (start time). */
function ownerAlive(o: Owner): boolean {
  if (o.host !== hostname()) return true; // another machine's verifier (a shared /tmp): not ours to judge
  if (!processAlive(o.pid)) return false;
  const start = processStartTime(o.pid);
  return o.start === null || start === null || start === o.start;
}

export interface ScratchDir {
  dir: string;
  pid: number | null;
  /** The owner runs: the directory is in use. */
  inUse: boolean;
  bytes: number;
}

/** Every verifier scratch directory under the temporary directory, in use or left by a dead verifier. */
export function listScratch(measure: (dir: string) => number): ScratchDir[] {
  let names: string[];
  try {
    names = readdirSync(scratchBase())
      .filter((n) => n.startsWith(scratchPrefix))
      .sort();
  } catch {
    return [];
  }
  return names.map((name) => {
    const dir = join(scratchBase(), name);
    const owner = readOwner(dir);
    return { dir, pid: owner?.pid ?? null, inUse: owner !== null ? ownerAlive(owner) : recentlyMade(dir), bytes: measure(dir) };
  });
}

/** A directory without an owner file yet is being created (its owner writes the file right away). */
function recentlyMade(dir: string): boolean {
  try {
    return Date.now() - statSync(dir).mtimeMs < 60_000;
  } catch {
    return false;
  }
}

/** Ends one process group a dead verifier left, unless its id now belongs to another process. */
function endGroup(pgid: number, start: string): boolean {
  const now = processStartTime(pgid);
  if (now !== null && start !== "" && now !== start) return false; // the leader's pid was reused
  try {
    process.kill(-pgid, "SIGKILL");
    return true;
  } catch {
    return false; // already gone
  }
}

export interface ReapResult {
  removed: string[];
  /** Process groups ended (a dead verifier's test commands and their children). */
  ended: number[];
}

/**
 * Cleans up after verifiers that died (kill -9, a crash): ends the process groups each one left
 * running and removes its scratch directory. Directories of verifiers that still run are left alone.
 */
export function reapStaleScratch(): ReapResult {
  const out: ReapResult = { removed: [], ended: [] };
  for (const s of listScratch(() => 0)) {
    if (s.inUse) continue;
    out.ended.push(...endRecordedGroups(s.dir));
    rmSync(s.dir, { recursive: true, force: true, maxRetries: 3 });
    out.removed.push(s.dir);
  }
  return out;
}

/** Ends every process group recorded in a scratch directory; returns the ones ended. */
function endRecordedGroups(dir: string): number[] {
  const groups = join(dir, "groups");
  let entries: string[] = [];
  try {
    entries = readdirSync(groups);
  } catch {
    // no groups recorded
  }
  const ended: number[] = [];
  for (const name of entries) {
    const pgid = Number(name);
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    let start = "";
    try {
      start = readFileSync(join(groups, name), "utf8").trim();
    } catch {
      // unreadable: judged by the pid alone
    }
    if (endGroup(pgid, start)) ended.push(pgid);
  }
  return ended;
}

/**
 * For a signal handler that is about to exit: ends the process groups of this process's open
 * scratch directories (its test runs) and removes the directories, synchronously (Node runs no
 * `finally` when it exits on a signal, so a stopped command would leave both behind).
 */
export function abandonOpenScratch(): ReapResult {
  const out: ReapResult = { removed: [], ended: [] };
  for (const root of [...openRoots]) {
    out.ended.push(...endRecordedGroups(root));
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    openRoots.delete(root);
    out.removed.push(root);
  }
  return out;
}

/** What a clean-up did, in words for the operator (nothing when there was nothing to clean). */
export function reapNotices(r: ReapResult): string[] {
  if (r.removed.length === 0) return [];
  const groups = r.ended.length > 0 ? ` (${r.ended.join(", ")})` : "";
  return [
    `cleaned up after ${r.removed.length} verifier(s) that died: ended ${r.ended.length} process group(s) they left running${groups}, removed ${r.removed.join(", ")}`,
  ];
}
