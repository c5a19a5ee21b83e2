import type { RunConfig } from "../formats/run-config.js";
import type { SandboxHardening } from "./bubblewrap.js";
import type { NetworkMode } from "./egress.js";
import type { SessionSandbox, SessionSandboxOptions } from "./session-sandbox.js";

/**
 * One way of confining what the harness runs (`--sandbox <mode>`): the agent's requests and the test
 * runs of verification, qualification and mining. Each backend is one object in registry.ts; nothing
 * outside src/confine/ asks which one it holds.
 */
export interface ConfineBackend {
  /** The `--sandbox` value and run.json's `sandbox.mode`. */
  readonly mode: string;
  /** For `--help`: what it confines, in a few words. */
  readonly summary: string;
  /** False: everything runs as the caller (no agent sandbox, no task environment inside one). */
  readonly confines: boolean;
  /** What `doctor` prints as the fix when it cannot confine here (the command that installs what it needs). */
  readonly install: string | null;
  /** What it can enforce on this machine, and why not (probed once per process). */
  probe(): ConfineProbe;
  /** run.json's `sandbox` for a run asked to be confined by this backend. InputError when it cannot be held here. */
  record(request: RecordRequest): SandboxRecord;
  /**
   * The sandbox of one session attempt's agent requests, with whatever it opens for them (the ways out of
   * `--network model`), closed after the attempt; undefined: the agent runs as the caller.
   */
  agentSandbox(o: AgentSandboxRequest): Promise<AgentSandbox | undefined>;
  /** How one test run is started (InfraFault when the backend cannot start here). */
  testRun(spec: TestRunSpec): TestRunConfinement;
}

export interface ConfineProbe {
  /** Null when the backend can confine here, else why not (one line, with what to install). */
  problem: string | null;
  /** What it found when it can confine (`doctor`'s detail: the tool's version, say). */
  detail?: string;
  /** What it sheds of the caller's privileges, each part applied or not with why (absent: nothing to shed). */
  hardening?: SandboxHardening;
}

export type SandboxRecord = NonNullable<RunConfig["sandbox"]>;

/** What the record of a run reads of its agent: its declaration at registration and its configuration. */
export interface ConfinedAgent {
  name: string;
  /** AgentCapabilities.confinable: its processes start through the session's sandbox, or it starts none. */
  confinable: boolean;
  /** It is a real CLI whose install is bound read-only inside. */
  cli: boolean;
  /** Agent.endpoints: the model endpoints its configuration names (undefined: none it could be held to). */
  endpoints?: readonly string[] | undefined;
}

export interface RecordRequest {
  network: NetworkMode;
  agent: ConfinedAgent;
  /** Why the run is unconfined (the demo without bubblewrap), recorded with an unconfined backend. */
  unconfinedBecause?: string | undefined;
}

/** One attempt's sandbox as the attempt asks for it (attempt-confinement.ts): its places, network and task environments. */
export type AgentSandboxRequest = Omit<SessionSandboxOptions, "egress"> & {
  /** `--network model`: the origins the agent reaches; the backend opens the ways out to them (`network` is then ignored). */
  allowedEndpoints?: readonly string[] | undefined;
};

/** A session attempt's sandbox and how to close what it opened for the attempt. */
export interface AgentSandbox extends SessionSandbox {
  close(): Promise<void>;
}

/** One test run: the checkout it starts in, what it may write and read, its python and environment. */
export interface TestRunSpec {
  checkout: string;
  writable: readonly string[];
  readable: readonly string[];
  /** The interpreter the test command runs (its prefixes are bound when outside the system directories). */
  python: string;
  env: NodeJS.ProcessEnv;
}

export interface TestRunConfinement {
  /** Where the checkout is seen inside (a neutral path, never the host's): absent, at its host path. */
  checkoutInside?: string;
  /** The command that runs `argv` confined (null: as the caller). */
  wrap: ((argv: readonly string[]) => { command: string; args: string[] }) | null;
  /** What the verify log says about the run's confinement. */
  note: string;
}
