import type { RcmMode } from "../rcm/history.js";
import type { RcmStateKind } from "../rcm/proxy/server.js";
import type { ProgressSink } from "./progress-events.js";
import type { ConditionChoice } from "./session-selection.js";
import type { NetworkMode } from "../confine/egress.js";
import type { Limits } from "../confine/limits.js";
import type { SubmissionMode } from "./message-templates.js";
import type { SessionBackend } from "./session-backend.js";

// The run's defaults, recorded in run.json (a resumed run keeps its own).
export const defaultRequestTimeoutS = 900;
export const maxContinuations = 3;
export const maxInfraRetries = 2;

/** Options of `switch-swe run`; undefined = not given (on --resume, taken from run.json). */
export interface RunOptions {
  out: string;
  resume: boolean;
  dataset?: string;
  sessions?: string;
  agent?: string;
  agentOptions?: Record<string, string>;
  condition?: ConditionChoice;
  sessionIds?: string[];
  seed?: number;
  label?: string;
  requestTimeoutS?: number;
  concurrency: number;
  keepWorkspaces: boolean;
  /** `--sandbox`: the backend (src/confine/registry.ts) that confines the agent's processes and the verifier's test runs (default: the registry's first, bwrap). */
  sandbox?: string;
  /** Why the run is unconfined, recorded in run.json with `sandbox: "none"` (the demo without bubblewrap). */
  unconfinedBecause?: string;
  /** `--submission`: the artifact is the agent's submitted patch or the focus checkout's diff (default: defaultSubmission). */
  submission?: SubmissionMode;
  /** The agent's network inside its sandbox: `model` (default: only the model endpoints its configuration names), `none`, or `on` (everything). */
  network?: NetworkMode;
  /** Resource limits of each session's processes (`--limits`; default the paper's 4 CPUs, 16 GiB, 1024 processes; on --resume: run.json's). */
  limits?: Limits;
  verify: boolean;
  progress: ProgressSink;
  /** Stops the run (the CLI wires Ctrl-C and SIGTERM to it). */
  signal?: AbortSignal;
  /** `--rcm`: an RCM proxy in front of the agent's model endpoint (on --resume: run.json's). */
  rcm?: RcmMode;
  /** `--rcm-state`: the proxy's state memory, model-written (default of `--rcm rcm`) or extractive (on --resume: run.json's). */
  rcmState?: RcmStateKind;
  /** Runs the sessions elsewhere (`--queue`: src/queue/coordinator.ts); default: in this process. */
  backend?: SessionBackend;
}
