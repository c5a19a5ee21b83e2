import { InputError } from "../core/errors.js";
import { bwrapProblem, sandboxHardening, type SandboxMode } from "../core/sandbox.js";
import type { RunConfig } from "../formats/run-config.js";
import { egressProblem, endpointsOf, type NetworkMode } from "../agents/egress.js";
import { agentCapabilities } from "../agents/registry.js";
import type { AttemptParams } from "./controller.js";


/** One line for the start of a run when a sandbox cannot shed the caller's ids or capabilities (null: nothing to say). */
export function hardeningWarning(record: RunConfig["sandbox"]): string | null {
  const h = record?.hardening;
  if (!h) return null;
  const missing = [h.user_namespace, h.capabilities, h.syscall_filter].filter((p) => !p.applied);
  return missing.length === 0 ? null : `sandbox weaker than it should be: ${missing.map((p) => p.detail).join("; ")} (run.json sandbox.hardening)`;
}

/**
 * What run.json records about confinement: the mode asked for, and in plain words what is enforced
 * and what is not, so a reader of the results knows what the verdicts rest on.
 */
export function sandboxRecord(
  mode: SandboxMode,
  network: NetworkMode,
  agent: string,
  unconfinedBecause?: string,
  /** The model endpoints the agent's configuration names (Agent.endpoints); undefined: it names none it could be held to. */
  endpoints?: readonly string[],
): NonNullable<RunConfig["sandbox"]> {
  // Resource limits are recorded apart, per resource (run.json `limits`, see limits-record.ts).
  const notEnforced: string[] = [];
  if (mode === "none") {
    const why = unconfinedBecause ?? "the agent runs as the caller with the whole machine in reach";
    return { mode, network: "on", enforced: [], not_enforced: [why, "verifier test runs unconfined", ...notEnforced] };
  }
  const problem = bwrapProblem();
  if (problem) throw new InputError([{ file: "--sandbox", path: "bwrap", message: `${problem}; or run with --sandbox none (nothing confined); see switch-swe doctor` }]);
  // The same for every sandbox of this process: the agent's requests and the verifier's test runs.
  const hardening = sandboxHardening();
  const parts = [hardening.user_namespace, hardening.capabilities, hardening.syscall_filter];
  const missing = parts.filter((p) => !p.applied).map((p) => `every sandbox (agent and verifier): ${p.detail}`);
  const can = agentCapabilities(agent);
  if (!can.confinable) {
    return { mode: "none", network: "on", enforced: [], not_enforced: [`agent ${agent} cannot be started in the sandbox yet: it runs unconfined`, ...missing, ...notEnforced], hardening };
  }
  const allowed = network === "model" ? modelEndpoints(agent, endpoints) : undefined;
  return {
    mode,
    network,
    ...(allowed ? { allowed_endpoints: allowed } : {}),
    enforced: [
      ...(parts.every((p) => p.applied) ? ["no capability in the machine's user namespace, even when the harness runs as root: own user namespace (uid 1000), all capabilities dropped, a syscall filter (file handles, mounts, namespaces refused)"] : []),
      "workspaces at /workspace/<repo>/w00..w04 in every session; nothing else of the machine writable",
      "private HOME and TMPDIR; no dataset, run directory, caches, other sessions or caller HOME visible",
      "new PID namespace per request: every process of a request dies when it ends",
      ...(can.cli ? ["the CLI's own install (its node_modules tree and node) read-only; its configuration only in the private HOME; only the named variables and the API key enter"] : []),
      ...(network === "none" ? ["no network (only a private loopback)"] : []),
      ...(allowed
        ? [`network: only the model endpoint${allowed.length === 1 ? "" : "s"} ${allowed.join(", ") || "(none named)"}, relayed into a private loopback (no other host or local port, no DNS); the CLI's own web fetch and search tools off unless web=on`]
        : []),
      "verifier test runs: checkout and environment (read-only) only, no network, new PID namespace",
    ],
    not_enforced: [...missing, ...(network === "on" ? ["network: the agent reaches every host and local port the machine reaches (--network on)"] : []), ...notEnforced],
    hardening,
  };
}

/** The origins `--network model` lets the agent reach, checked now (bad input when there is no way to hold the agent to them). */
function modelEndpoints(agent: string, endpoints: readonly string[] | undefined): string[] {
  if (endpoints === undefined) {
    throw new InputError([{ file: "--network", path: "model", message: `agent ${agent} names no model endpoint it could be held to (give base_url=URL); or run with --network on` }]);
  }
  if (endpoints.length > 0) {
    const problem = egressProblem();
    if (problem) throw new InputError([{ file: "--network", path: "model", message: `${problem}; or run with --network on` }]);
  }
  try {
    return endpointsOf(endpoints).map((e) => e.origin);
  } catch (e) {
    throw new InputError([{ file: "--network", path: "model", message: `${(e as Error).message}` }]);
  }
}

/** The agent's sandbox of each session attempt as run.json records it (null: unconfined). */
export function agentSandbox(record: RunConfig["sandbox"]): AttemptParams["sandbox"] {
  if (record?.mode !== "bwrap") return null;
  if (record.network === "model") return { network: false, allowed_endpoints: record.allowed_endpoints ?? [] };
  return { network: record.network === "on" };
}
