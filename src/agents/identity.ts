import { registeredCapabilities } from "./registry.js";

/** Harness, version, model and effort of a run's agent: what the report's configurations table and the ATIF export both say. */
export interface AgentIdentity {
  harness: string | null;
  version: string | null;
  model: string | null;
  effort: string | null;
}

const text = (x: unknown): string | null => (typeof x === "string" && x !== "" ? x : null);

/** The model the harness's own agents name in their (synthetic) model calls; nop calls none. */
const ownModels: Record<string, string> = { oracle: "oracle" };

/**
 * From run.json: a real CLI agent's recorded harness (name, exact version, model, effort); the harness's
 * own agents (oracle, nop) are switch-swe at the version that ran them; anything else is not recorded (null).
 */
export function agentIdentity(config: { agent: { name: string; harness?: unknown }; switch_swe_version?: unknown }): AgentIdentity {
  const h = config.agent.harness;
  if (typeof h === "object" && h !== null) {
    const r = h as Record<string, unknown>;
    return { harness: text(r.name), version: text(r.version), model: text(r.model), effort: text(r.effort) };
  }
  if (registeredCapabilities(config.agent.name)?.harnessSide) {
    return { harness: "switch-swe", version: text(config.switch_swe_version), model: ownModels[config.agent.name] ?? null, effort: null };
  }
  return { harness: null, version: null, model: null, effort: null };
}
