import { sha256 } from "../core/digest.js";

/**
 * Names in Redis. BullMQ keeps its own keys under `bull:<queue>:`; everything switch-swe adds lives
 * under `switch-swe:`. Several runs (and verifications) may share one Redis and one fleet of workers.
 */
export const sessionQueue = "switch-swe-sessions";
export const verifyQueue = "switch-swe-verify";
/** Test runs of `tasks mine --queue` (one candidate each) and `tasks qualify --queue` (one task each). */
export const taskQueue = "switch-swe-tasks";

const root = "switch-swe";

export const keys = {
  /** Chunks of a content-addressed blob (a packed dataset), encrypted with one queue secret, and its chunk count. */
  blobMeta: (secretId: string, digest: string) => `${root}:blob:${secretId}:${digest}`,
  blobChunk: (secretId: string, digest: string, i: number) => `${root}:blob:${secretId}:${digest}:${i}`,
  /** The live coordinator of a run: "host pid since", expires unless renewed. */
  coordinator: (runId: string) => `${root}:run:${runId}:coordinator`,
  /** Coordinator-published facts for `queue status`: label, run dir name, counts. */
  runInfo: (runId: string) => `${root}:run:${runId}:info`,
  runs: () => `${root}:runs`,
  /** The result of one attempt of one session (gzip JSON), written once by the worker that ran it. */
  result: (runId: string, session: string, attempt: number) => `${root}:run:${runId}:result:${session}:${attempt}`,
  /** Attempts whose result a worker stored since the coordinator last looked ("<session> <attempt>" each). */
  done: (runId: string) => `${root}:run:${runId}:done`,
  /** The trajectory of a running attempt, appended as it grows (what survives a worker that dies). */
  trajectory: (runId: string, session: string, attempt: number) => `${root}:run:${runId}:trajectory:${session}:${attempt}`,
  /** Progress events of the run's workers (a Redis stream the coordinator reads). */
  events: (runId: string) => `${root}:run:${runId}:events`,
  /** The verdict of one verification job (gzip JSON). */
  verdict: (runId: string, session: string, artifactSha: string) => `${root}:run:${runId}:verdict:${session}:${artifactSha}`,
  /** The result of one mining or qualification job (gzip JSON, signed), written once by the first worker that ran it. */
  taskResult: (runId: string, jobKey: string) => `${root}:run:${runId}:task-result:${jobKey}`,
  /** Live workers: hash worker name -> JSON heartbeat (host, pid, version, running jobs, time). */
  workers: () => `${root}:workers`,
};

/** BullMQ job id of one attempt of one session of a run (stable, so adding it twice is a no-op). */
export function sessionJobId(runId: string, session: string, attempt: number): string {
  return `${runId}.${session}.${attempt}`;
}

export function verifyJobId(runId: string, session: string, artifactSha: string): string {
  return `${runId}.${session}.verify.${artifactSha.slice(0, 16)}`;
}

/** BullMQ job id of one try of a mining or qualification job (a try is added again when its worker died). */
export function taskJobId(runId: string, jobKey: string, attempt: number): string {
  return `${runId}.${jobKey}.${attempt}`;
}

/** A mining candidate's job key (its provenance names it, hashed: job ids stay short and plain). */
export function mineJobKey(candidate: string): string {
  return `mine-${sha256(candidate).slice(0, 16)}`;
}

export function qualifyJobKey(task: string): string {
  return `qualify-${sha256(task).slice(0, 16)}`;
}

/** Results and trajectories left in Redis expire after this long (the coordinator deletes them first). */
export const resultTtlS = 14 * 24 * 3600;
