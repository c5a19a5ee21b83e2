import type { RunConfig } from "../formats/run-config.js";
import type { ConfineBackend, RecordRequest, SandboxRecord } from "./backend.js";
import { sessionLimits } from "./limits-record.js";
import { defaultLimits, parseLimits, type Limits } from "./limits.js";
import { confineBackend, defaultConfineBackend } from "./registry.js";

/**
 * A run's confinement, built once from run.json (on a fresh run, from the record the flags made) and
 * handed to the controller (the agent's requests), the queue workers (as a job's fields, rebuilt on the
 * worker) and the verifier (its test runs).
 */
export interface Confinement {
  /** The agent's requests (null: the agent runs as the caller). */
  agent: AgentConfinement | null;
  /** Each test run of the run's verification. */
  testRuns: ConfineBackend;
  /** The limits of each session's processes that run.json records as enforced (null: none). */
  sessionLimits: Limits | null;
  /** The limits of each verification test run: run.json's as asked, else the defaults. */
  testRunLimits: Limits;
}

/** How one attempt's agent is confined. */
export interface AgentConfinement {
  backend: ConfineBackend;
  /** True: the machine's network (`--network on`); false: a private loopback (with `allowed_endpoints`, its only ways out). */
  network: boolean;
  /** `--network model`: the origins the agent reaches (egress.ts). */
  allowed_endpoints?: string[] | undefined;
}

/** run.json's `sandbox` for a new run confined by `mode` (InputError when it cannot be held here). */
export function sandboxRecord(mode: string, request: RecordRequest, where?: { file: string; path: string }): SandboxRecord {
  return confineBackend(mode, where).record(request);
}

/** The confinement run.json (`file`) records; a mode no backend has is bad input naming the field. */
export function confinementOf(config: Pick<RunConfig, "sandbox" | "limits">, file: string): Confinement {
  return {
    agent: agentConfinement(config.sandbox, file),
    testRuns: recordedTestRuns(config.sandbox, file),
    sessionLimits: sessionLimits(config.limits),
    testRunLimits: config.limits ? parseLimits(config.limits.requested, `${file}: limits.requested`) : defaultLimits,
  };
}

function agentConfinement(record: RunConfig["sandbox"], file: string): AgentConfinement | null {
  if (!record) return null;
  const backend = confineBackend(record.mode, { file, path: "sandbox.mode" });
  if (!backend.confines) return null;
  if (record.network === "model") return { backend, network: false, allowed_endpoints: record.allowed_endpoints ?? [] };
  return { backend, network: record.network === "on" };
}

/**
 * The backend of a run's test runs as run.json records it: `sandbox.verifier` (an agent that cannot be
 * confined, its artifacts still verified confined), else `sandbox.mode`; a run without a record, the default.
 */
export function recordedTestRuns(record: { mode: string; verifier?: string | undefined } | undefined, file: string): ConfineBackend {
  if (!record) return defaultConfineBackend();
  return record.verifier !== undefined
    ? confineBackend(record.verifier, { file, path: "sandbox.verifier" })
    : confineBackend(record.mode, { file, path: "sandbox.mode" });
}

/** What a queue job carries of the agent's confinement (null: none), rebuilt on the worker by agentConfinementOfJob. */
export interface AgentConfinementJob {
  /** Absent in jobs of coordinators before it was sent: the default backend. */
  mode?: string | undefined;
  network: boolean;
  allowed_endpoints?: string[] | undefined;
}

export function agentConfinementJob(c: AgentConfinement | null): AgentConfinementJob | null {
  return c
    ? { mode: c.backend.mode, network: c.network, ...(c.allowed_endpoints ? { allowed_endpoints: c.allowed_endpoints } : {}) }
    : null;
}

export function agentConfinementOfJob(job: AgentConfinementJob | null, where: string): AgentConfinement | null {
  if (!job) return null;
  const backend = job.mode === undefined ? defaultConfineBackend() : confineBackend(job.mode, { file: where, path: "sandbox.mode" });
  return { backend, network: job.network, ...(job.allowed_endpoints ? { allowed_endpoints: job.allowed_endpoints } : {}) };
}
