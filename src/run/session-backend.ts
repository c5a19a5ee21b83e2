import type { Dataset } from "../dataset/load.js";
import type { Confinement } from "../confine/confinement.js";
import type { RunConfig } from "../formats/run-config.js";
import type { Ledger } from "./ledger.js";
import type { ProgressSink } from "./progress-events.js";
import type { SelectedSession } from "./session-selection.js";

// Where a run's sessions run when not in this process: `run --queue` gives the runner one
// (src/queue/coordinator.ts); a remote sandbox service would be reached through the queue's workers.

/** What a backend gets of a prepared run: the ledger and the run directory stay this process's. */
export interface BackendRun {
  runDir: string;
  config: RunConfig;
  dataset: Dataset;
  ledger: Ledger;
  progress: ProgressSink;
  signal: AbortSignal;
  concurrency: number;
  /** The run's confinement as run.json records it: the agent's, and each verification test run's (--sandbox, --limits as asked). */
  confinement: Confinement;
}

/** Where sessions run when not in this process. It reports session ends through `outcome`. */
export interface SessionBackend {
  /** Settles attempts an earlier invocation left `running` (instead of marking them interrupted). */
  recover(run: BackendRun): Promise<void>;
  run(todo: SelectedSession[], run: BackendRun, outcome: RunOutcome): Promise<void>;
  /** Returns the sessions whose verdict is an infrastructure fault. */
  verify(run: BackendRun, sessions: readonly string[]): Promise<string[]>;
  close(): Promise<void>;
}

export interface RunOutcome {
  runDir: string;
  finished: string[];
  failed: string[];
  skipped: string[];
  interrupted: boolean;
  /** Sessions whose verification ended in an infrastructure fault (the verdict says nothing about the agent). */
  infraFaults: string[];
}
