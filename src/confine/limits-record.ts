import { probeLimits } from "./cgroups.js";
import { limitsText, parseLimits, type Limits } from "./limits.js";
import type { RunConfig } from "../formats/run-config.js";

/**
 * What run.json records about `--limits`: what was asked, and per resource whether this machine
 * enforces it (probed by making and removing a group), how, or why not. `agent.limits`: what the agent
 * declares at registration (AgentCapabilities.limits).
 */
export function limitsRecord(limits: Limits, agent: { name: string; limits: boolean }, queued: boolean): NonNullable<RunConfig["limits"]> {
  const record: NonNullable<RunConfig["limits"]> = { requested: limitsText(limits), ...probeLimits(limits) };
  const probed = [record.cpus, record.memory, record.pids];
  if (!agent.limits) {
    for (const r of probed) {
      if (r.status === "enforced")
        Object.assign(r, { status: "not_enforced", detail: `agent ${agent.name} is not started under the limits yet` });
    }
  } else if (queued) {
    // This machine's cgroups say nothing about the workers': each one enforces what it can.
    for (const r of probed) {
      if (r.limit !== null)
        Object.assign(r, {
          status: "per_worker",
          detail: "each queue worker enforces it on its own machine; one that cannot says so in the session's trajectory",
        });
    }
  }
  return record;
}

/** What a queue job carries of run.json's limits: the request when workers are to apply it. */
export function queuedLimits(record: RunConfig["limits"]): string | null {
  if (!record) return null;
  return [record.cpus, record.memory, record.pids].some((r) => r.status === "per_worker") ? record.requested : null;
}

/** The limits a session applies: those run.json records as enforced (null: nothing to apply). */
export function sessionLimits(record: RunConfig["limits"]): Limits | null {
  if (!record) return null;
  const limits = parseLimits(record.requested, "run.json: limits.requested");
  const applied: Limits = { cpus: null, memory: null, pids: null };
  for (const r of ["cpus", "memory", "pids"] as const) if (record[r].status === "enforced") applied[r] = limits[r];
  return applied.cpus === null && applied.memory === null && applied.pids === null ? null : applied;
}
