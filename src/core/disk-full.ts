import { statfsSync } from "node:fs";

/** errno codes and SQLite codes of a file system that has no room left (space or quota). */
const diskFullCodes = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"]);
/** The same, as tools (git, sh, SQLite) print it in the messages we wrap. */
const diskFullText = /no space left on device|disk quota exceeded|database or disk is full/i;

/** True when an error (or a message that wraps a tool's error) says the disk is full. */
export function isDiskFull(e: unknown): boolean {
  if (e === null || e === undefined) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string" && diskFullCodes.has(code)) return true;
  const message = e instanceof Error ? e.message : typeof e === "string" ? e : "";
  return diskFullText.test(message);
}

/**
 * A fault seen where the disk is (nearly) full: tools do not always say "No space left on device" (git
 * may only say it cannot write its index), so a fault with less than `minBytes` free on the file system
 * of `dir` is taken as a full disk too. Returns that error, or null.
 */
export function fullDiskBehind(e: unknown, dir: string, minBytes = 1024 * 1024): Error | null {
  if (isDiskFull(e)) return e as Error;
  let free: number;
  try {
    const st = statfsSync(dir);
    free = st.bavail * st.bsize;
  } catch {
    return null;
  }
  if (free >= minBytes) return null;
  return Object.assign(new Error(`only ${Math.floor(free / 1024)} KB free on the file system of ${dir}: ${firstLine(e)}`), {
    code: "ENOSPC",
  });
}

/** The first line of an error's message, without a stack. */
export function firstLine(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return (text.split("\n").find((l) => l.trim() !== "") ?? text).trim().slice(0, 300);
}

/**
 * A full disk stopped a command part-way: everything finished before it is kept, and the command can be
 * run again (or resumed) once there is space. The CLI prints the message as one line and exits 4.
 */
export class DiskFull extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DiskFull";
  }
}

/**
 * The first full-disk fault of a command that runs many items (sessions, verifications): once stopped,
 * no new item starts; items already running end as they can.
 */
export class DiskFullStop {
  private first: { item: string; reason: string } | null = null;

  get stopped(): boolean {
    return this.first !== null;
  }

  /** Records the fault (the first one is reported) when `e` is a full disk; returns whether it was. */
  record(item: string, e: unknown): boolean {
    if (!isDiskFull(e)) return false;
    this.first ??= { item, reason: firstLine(e) };
    return true;
  }

  /** The DiskFull error to end the command with, or null when the disk never filled up. */
  error(what: (first: { item: string; reason: string }) => string): DiskFull | null {
    return this.first ? new DiskFull(what(this.first)) : null;
  }
}
