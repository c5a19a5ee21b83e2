import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Text or bytes written to stdin, which is then closed. Without it stdin is /dev/null. */
  input?: string | Uint8Array;
  /** Wall-clock deadline; on expiry the whole process group is killed. */
  timeoutMs?: number;
  /** Called with every complete stdout line as it arrives (for event streams). */
  onStdoutLine?: (line: string) => void;
  /** Keep at most this many bytes of stdout/stderr in memory (the tail is kept). Default 16 MiB. */
  maxBuffer?: number;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  /** Set when the program could not be started at all (ENOENT, EACCES). */
  spawnError?: string;
}

/** Told of every process group this process starts and sees end (the verifier records them in its scratch). */
export interface GroupWatcher {
  started(pgid: number): void;
  ended(pgid: number): void;
}

const groupWatchers = new Set<GroupWatcher>();

/** Adds a watcher of process groups; returns the function that removes it. */
export function watchProcessGroups(w: GroupWatcher): () => void {
  groupWatchers.add(w);
  return () => groupWatchers.delete(w);
}

/** Tells the watchers that a group started; returns the function that tells them it ended. */
function noteGroup(pgid: number | undefined): () => void {
  if (pgid === undefined || groupWatchers.size === 0) return () => undefined;
  const watchers = [...groupWatchers];
  for (const w of watchers) w.started(pgid);
  return () => {
    for (const w of watchers) w.ended(pgid);
  };
}

/**
 * Runs one program in its own process group with a deadline. On timeout the whole group gets
 * SIGTERM, then SIGKILL after a grace period, so children that a tool spawned do not outlive it.
 * This is the one place the project starts processes.
 */
export function runProcess(command: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const started = Date.now();
  const maxBuffer = opts.maxBuffer ?? 16 * 1024 * 1024;
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, {
        cwd: opts.cwd,
        env: opts.env ?? process.env,
        detached: true,
        stdio: [opts.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      });
    } catch (e) {
      resolve({ code: null, signal: null, stdout: "", stderr: "", timedOut: false, durationMs: 0, spawnError: String(e) });
      return;
    }
    const groupEnded = noteGroup(child.pid);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let [outLen, errLen] = [0, 0];
    let lineRest = "";
    let timedOut = false;
    let spawnError: string | undefined;
    let killTimer: NodeJS.Timeout | undefined;

    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group is already gone
      }
    };
    const deadline =
      opts.timeoutMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            killGroup("SIGTERM");
            killTimer = setTimeout(() => killGroup("SIGKILL"), 2000);
          }, opts.timeoutMs)
        : undefined;

    child.stdout!.on("data", (chunk: Buffer) => {
      out.push(chunk);
      outLen += chunk.length;
      while (outLen > maxBuffer && out.length > 1) outLen -= out.shift()!.length;
      if (opts.onStdoutLine) {
        const text = lineRest + chunk.toString("utf8");
        const lines = text.split("\n");
        lineRest = lines.pop() ?? "";
        for (const line of lines) opts.onStdoutLine(line);
      }
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      err.push(chunk);
      errLen += chunk.length;
      while (errLen > maxBuffer && err.length > 1) errLen -= err.shift()!.length;
    });
    child.on("error", (e) => {
      spawnError = e.message;
    });
    if (opts.input !== undefined && child.stdin) {
      child.stdin.on("error", () => undefined);
      child.stdin.end(opts.input);
    }
    child.on("close", (code, signal) => {
      if (deadline) clearTimeout(deadline);
      if (opts.onStdoutLine && lineRest) opts.onStdoutLine(lineRest);
      // Children that detached from the pipes may still run; the group is ours to end.
      killGroup("SIGKILL");
      groupEnded();
      if (killTimer) clearTimeout(killTimer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        timedOut,
        durationMs: Date.now() - started,
        ...(spawnError ? { spawnError } : {}),
      });
    });
  });
}

/** Runs a program that must succeed; throws with its stderr otherwise. */
export async function runChecked(command: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const r = await runProcess(command, args, opts);
  if (r.spawnError || r.code !== 0) {
    const why = r.spawnError ?? (r.timedOut ? "timed out" : `exit ${r.code ?? r.signal}`);
    throw new Error(`${command} ${args.join(" ")}: ${why}: ${r.stderr.trim().slice(-2000)}`);
  }
  return r;
}

/** When a process started (field 22 of /proc/PID/stat, clock ticks since boot), to tell it from a later one with its pid. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
