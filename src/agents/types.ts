import type { z } from "zod";
import type { harnessInfoSchema } from "../formats/run-config.js";
import type { SessionSandbox } from "../confine/session-sandbox.js";
import type { ProcessCgroup } from "../confine/cgroups.js";
import type { Dataset } from "../dataset/load.js";
import type { AgentEvent, RequestOutcome } from "../formats/trajectory.js";
import type { Condition, SessionPair, WorkspaceName } from "../formats/sessions.js";
import type { CliPackage } from "./cli-options.js";

/**
 * Harness-side facts about one session attempt. Real CLI agents use only `request.message` and
 * `request.workspacePath`; reference agents (oracle) may read the rest to act.
 */
export interface AgentContext {
  /** Session id `<focus>.<condition>`. */
  session: string;
  pair: SessionPair;
  condition: Condition;
  /** 1-based attempt of this session; every attempt is a fresh conversation. */
  attempt: number;
  /** The run's seed (`--seed`). */
  runSeed: number;
  dataset: Dataset;
  /** Absolute path of each workspace checkout. */
  workspaces: Record<WorkspaceName, string>;
  /** Base commit each workspace was checked out at. */
  baseCommits: Record<WorkspaceName, string>;
  /** Stable id of this conversation (one per session attempt), a UUID. */
  conversationId: string;
  /** A private directory outside every workspace for the agent's state; removed with the workspaces. */
  stateDir: string;
  /** A directory kept with the session's results (RUN_DIR/sessions/<session>/agent) for the agent's logs. */
  logDir: string;
  /**
   * Set when the session runs sandboxed: `workspaces` and request paths are then the paths inside
   * (`/workspace/<repo>/wNN`), process agents start their commands through `sandbox.wrap`, and
   * harness-side agents reach the files through `sandbox.hostPath`.
   */
  sandbox?: SessionSandbox;
  /**
   * Set under `run --submission agent`: where the finalization request asks the agent to write the task's
   * final patch (a path as the agent sees it, in the focus workspace). Real CLIs learn it from the message.
   */
  submissionPath?: string;
  /** Set when the session has resource limits: process agents start every program through `limits.wrap` (one group per session). */
  limits?: Pick<ProcessCgroup, "wrap">;
}

/** One message delivered to the agent. */
export interface AgentRequest {
  /** Index of the request in the session's schedule (a continuation repeats the index). */
  index: number;
  /** The exact message text (see src/run/message-templates.ts). */
  message: string;
  workspace: WorkspaceName;
  workspacePath: string;
  /** True when this re-sends the same request after a timeout. */
  continuation: boolean;
  /** Number of earlier sends in this conversation (0 for the first). */
  turn: number;
  /** Wall-clock budget of this request; the agent must stop (kill its process tree) by then. */
  timeoutMs: number;
  /** Aborted when the whole run is being stopped (Ctrl-C); stop at once. */
  signal: AbortSignal;
}

export interface AgentResult {
  /** yielded: the agent finished its turn; timeout: the budget ran out and the agent was stopped;
   * agent_error: the agent failed (never retried); infra_fault: the agent could not run for reasons
   * outside it (the session attempt is restarted). */
  outcome: RequestOutcome;
  detail?: string;
}

export type EventSink = (event: AgentEvent) => void;

export interface Conversation {
  send(request: AgentRequest, onEvent: EventSink): Promise<AgentResult>;
  close(): Promise<void>;
}

/** What run.json records about the agent harness (src/formats/run-config.ts). */
export type HarnessInfo = z.infer<typeof harnessInfoSchema>;

export interface Agent {
  readonly name: string;
  /**
   * The model endpoints (URLs) its configuration names: under `--network model` the sandbox reaches
   * these and nothing else. Undefined: it names none it could be held to (the run then needs `--network on`).
   */
  readonly endpoints?: readonly string[];
  startConversation(ctx: AgentContext): Promise<Conversation>;
  /** Asks the harness what it is (version from the CLI itself); recorded in run.json. */
  describe?(): Promise<HarnessInfo>;
}

/**
 * What an agent can be held to, declared where it is registered (registry.ts) and read by whatever
 * confines or records it: no other list of agent names decides it, so a new agent that declares
 * nothing is not silently taken for confined.
 */
export interface AgentCapabilities {
  /** Its processes start through the session's sandbox, or it starts none (it acts from the harness side). */
  confinable: boolean;
  /** Its processes start in the session's resource-limit group, or it starts none. */
  limits: boolean;
  /** It acts from the harness side and starts nothing in the sandbox (oracle, nop): no task environment is built for it; its version is switch-swe's. */
  harnessSide: boolean;
  /** A real coding-agent CLI: its npm package, whose install is bound read-only inside and checked by `doctor`. */
  cli?: CliPackage;
  /** The artifact by default: the focus checkout's diff (the harness's own agents) or the patch it submits (real agents, as in the paper). */
  submission: "checkout" | "agent";
}

/**
 * An agent by name. `parse` validates `--agent-opt key=value` pairs (InputError on any problem) and
 * checks what can be checked before a run starts (a binary on PATH); `create` builds the agent.
 */
export interface AgentFactory<O = unknown> {
  readonly name: string;
  readonly description: string;
  readonly capabilities: AgentCapabilities;
  parse(options: Record<string, string>): O;
  create(options: O): Agent;
}
