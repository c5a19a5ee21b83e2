/**
 * The harness's own phases of a session attempt, marked so that a benchmark can measure what each costs
 * beside the agent (bench/run-overhead.mjs). Nothing in the harness reads the marks: without an observer,
 * `timed` only calls its function.
 */
export type HarnessPhase =
  /** The five checkouts and the evidence store. */
  | "workspace_setup"
  /** The session's sandbox, resource group and the agent's conversation. */
  | "agent_start"
  /** The agent's turn (for a process agent: its process start, sandbox included). */
  | "request"
  /** The workspace-state snapshot before the first and after every request. */
  | "evidence"
  /** One trajectory line written. */
  | "trajectory"
  /** The five patches collected. */
  | "artifact"
  /** Closing the conversation, removing the resource group, the evidence store and the workspaces. */
  | "cleanup";

/** Called at each phase's start and end, in order; phases may nest (a trajectory line inside a request). */
export type PhaseObserver = (phase: HarnessPhase, edge: "start" | "end") => void;

let observer: PhaseObserver | null = null;

/** Installs (or with null removes) the process's one observer. Sessions run concurrently share it. */
export function observePhases(o: PhaseObserver | null): void {
  observer = o;
}

export async function timed<T>(phase: HarnessPhase, fn: () => Promise<T>): Promise<T> {
  const o = observer;
  if (!o) return fn();
  o(phase, "start");
  try {
    return await fn();
  } finally {
    o(phase, "end");
  }
}

export function timedSync<T>(phase: HarnessPhase, fn: () => T): T {
  const o = observer;
  if (!o) return fn();
  o(phase, "start");
  try {
    return fn();
  } finally {
    o(phase, "end");
  }
}
