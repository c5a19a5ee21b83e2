import { probeLimits, type LimitsRecord } from "../core/cgroups.js";
import { limitsText, parseLimits, type Limits } from "../core/limits.js";
import type { RunConfig } from "../formats/run-config.js";

/** Agents whose processes the controller starts under the session's limits (harness-side agents start none). */
export const limitedAgents = new Set(["command", "oracle", "nop", "opencode", "claude-code", "codex", "gemini"]);

/**
 * What run.json records about `--limits`: what was asked, and per resource whether this machine
 * enforces it (probed by making and removing a group), how, or why not.
 */
export function limitsRecord(limits: Limits, agent: string, queued: boolean): NonNullable<RunConfig["limits"]> {
  const probed: LimitsRecord = probeLimits(limits);
  const why = queued ? "sessions run on queue workers, which do not apply --limits yet" : !limitedAgents.has(agent) ? `agent ${agent} is not started under the limits yet` : null;
  if (why !== null) {
    for (const r of Object.values(probed)) {
      if (r.status === "enforced") Object.assign(r, { status: "not_enforced", detail: why });
    }
  }
  return { requested: limitsText(limits), ...probed };
}

/** The limits a session applies: those run.json records as enforced (null: nothing to apply). */
export function sessionLimits(record: RunConfig["limits"]): Limits | null {
  if (!record) return null;
  const limits = parseLimits(record.requested, "run.json: limits.requested");
  const applied: Limits = { cpus: null, memory: null, pids: null };
  for (const r of ["cpus", "memory", "pids"] as const) if (record[r].status === "enforced") applied[r] = limits[r];
  return applied.cpus === null && applied.memory === null && applied.pids === null ? null : applied;
}
