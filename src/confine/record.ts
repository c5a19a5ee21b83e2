import { InputError } from "../core/errors.js";
import type { RunConfig } from "../formats/run-config.js";
import { egressProblem, endpointsOf } from "./egress.js";

/** One line for the start of a run when a sandbox cannot shed the caller's ids or capabilities (null: nothing to say). */
export function hardeningWarning(record: RunConfig["sandbox"]): string | null {
  const h = record?.hardening;
  if (!h) return null;
  const missing = [...(h.host_user ? [h.host_user] : []), h.user_namespace, h.capabilities, h.syscall_filter].filter((p) => !p.applied);
  return missing.length === 0
    ? null
    : `sandbox weaker than it should be: ${missing.map((p) => p.detail).join("; ")} (run.json sandbox.hardening)`;
}

/** The origins `--network model` lets the agent reach, checked now (bad input when there is no way to hold the agent to them). */
export function modelEndpoints(agent: string, endpoints: readonly string[] | undefined): string[] {
  if (endpoints === undefined) {
    throw new InputError([
      {
        file: "--network",
        path: "model",
        message: `agent ${agent} names no model endpoint it could be held to (give base_url=URL); or run with --network on`,
      },
    ]);
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
