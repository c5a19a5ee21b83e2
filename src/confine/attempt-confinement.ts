import { join } from "node:path";
import type { WorkspaceName } from "../formats/sessions.js";
import type { AgentSandbox } from "./backend.js";
import { createCgroup, type ProcessCgroup } from "./cgroups.js";
import type { AgentConfinement } from "./confinement.js";
import type { Limits } from "./limits.js";
import { sandboxOwner } from "./sandbox-user.js";
import { sandboxHome } from "./session-sandbox.js";
import type { WorkspaceEnvironments } from "./task-env.js";

// The room's entry for one session attempt (src/run/controller.ts imports nothing else of src/confine/,
// test/architecture/confine-entry.test.ts): whatever the backend, the attempt asks here for its sandbox,
// its network and its resource limits, and closes them here.
export type { AgentConfinement } from "./confinement.js";
export type { Limits } from "./limits.js";
export type { ProcessCgroup } from "./cgroups.js";
export type { SessionSandbox } from "./session-sandbox.js";
export type { WorkspaceEnvironments } from "./task-env.js";

/** The directories of an attempt's work directory its sandbox binds besides the workspaces. */
export function attemptDirs(workDir: string): { home: string; state: string; shims: string } {
  return { home: sandboxHome(workDir), state: join(workDir, "agent"), shims: join(workDir, "task-env-bin") };
}

/** Who owns the attempt's workspaces: the sandbox's user when its agent is confined (null: the caller). */
export function workspaceOwner(agent: AgentConfinement | null): number | null {
  return agent?.backend.confines ? sandboxOwner() : null;
}

export interface AttemptConfinementRequest {
  /** The agent's confinement (null: it runs as the caller). */
  agent: AgentConfinement | null;
  /** The limits of all the attempt's processes, in one group (null: none). */
  limits: Limits | null;
  repo: string;
  /** Host path of each workspace. */
  workspaces: Record<WorkspaceName, string>;
  workDir: string;
  /** The workspaces' task environments, seen inside (absent: the host's python). */
  taskEnv?: WorkspaceEnvironments | undefined;
}

export interface ConfinedAttempt {
  /** The agent's sandbox (undefined: unconfined). */
  sandbox: AgentSandbox | undefined;
  /** The attempt's process group of resource limits (null: none asked). */
  cgroup: ProcessCgroup | null;
  /** Limits asked for that this machine does not enforce, one line each. */
  warnings: string[];
  /** Closes what the attempt opened (the network's ways out, the group); `warn` hears what could not be. */
  close(warn: (message: string) => void): Promise<void>;
}

/**
 * One attempt's confinement: its backend's sandbox (under `--network model` with the ways out the
 * backend opens to the allowed endpoints) and its group of resource limits. What it opened before a
 * failure is closed again before the failure is thrown.
 */
export async function confineAttempt(r: AttemptConfinementRequest): Promise<ConfinedAttempt> {
  const dirs = attemptDirs(r.workDir);
  const where = { repo: r.repo, workspaces: r.workspaces, stateDir: dirs.state, homeDir: dirs.home };
  const env = r.taskEnv ? { taskEnv: r.taskEnv, shimsDir: dirs.shims } : {};
  const sandbox = r.agent
    ? await r.agent.backend.agentSandbox({ ...where, network: r.agent.network, allowedEndpoints: r.agent.allowed_endpoints, ...env })
    : undefined;
  let cgroup: ProcessCgroup | null;
  try {
    cgroup = r.limits ? createCgroup(r.limits) : null;
  } catch (e) {
    await sandbox?.close();
    throw e;
  }
  const warnings = Object.entries(cgroup?.record ?? {}).flatMap(([resource, rec]) =>
    rec.status !== "enforced" && rec.limit !== null
      ? [`resource limits: ${resource}=${rec.limit} is not enforced on this machine: ${rec.detail}`]
      : [],
  );
  return {
    sandbox,
    cgroup,
    warnings,
    close: async (warn) => {
      await sandbox?.close();
      await cgroup?.remove().catch((e: unknown) => warn(`resource limits: ${e instanceof Error ? e.message : String(e)}`));
    },
  };
}
