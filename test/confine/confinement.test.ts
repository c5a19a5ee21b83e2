import { describe, expect, it } from "vitest";
import { agentConfinementJob, agentConfinementOfJob, confinementOf } from "../../src/confine/confinement.js";
import { formatProblem, InputError } from "../../src/core/errors.js";

const file = "/runs/r1/run.json";
const sandbox = (extra: Record<string, unknown>) => ({
  sandbox: { network: "on" as const, enforced: [], not_enforced: [], ...extra } as never,
  limits: undefined,
});

/** The one line `switch-swe` prints for a bad input thrown by `fn`. */
function badInput(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof InputError) return e.problems.map(formatProblem).join("\n");
    throw e;
  }
  throw new Error("no InputError");
}

describe("a run's confinement, built from run.json", () => {
  it("follows the record: the agent's backend and network, the verifier's backend (sandbox.verifier first)", () => {
    const model = confinementOf(sandbox({ mode: "bwrap", network: "model", allowed_endpoints: ["http://127.0.0.1:4000"] }), file);
    expect(model.agent).toMatchObject({ backend: { mode: "bwrap" }, network: false, allowed_endpoints: ["http://127.0.0.1:4000"] });
    expect(model.testRuns.mode).toBe("bwrap");
    expect(confinementOf(sandbox({ mode: "bwrap", network: "on" }), file).agent).toMatchObject({ network: true });

    const none = confinementOf(sandbox({ mode: "none" }), file);
    expect(none.agent).toBeNull();
    expect(none.testRuns.mode).toBe("none");
    // An agent that cannot be confined: run as the caller, verified under bubblewrap.
    const unconfinable = confinementOf(sandbox({ mode: "none", verifier: "bwrap" }), file);
    expect(unconfinable.agent).toBeNull();
    expect(unconfinable.testRuns.mode).toBe("bwrap");
    // A run made before the record: verified by the default backend, the agent as the caller.
    expect(confinementOf({ sandbox: undefined, limits: undefined }, file)).toMatchObject({
      agent: null,
      testRuns: { mode: "bwrap" },
      sessionLimits: null,
    });
  });

  it("a mode no backend has is bad input naming the file and field", () => {
    expect(badInput(() => confinementOf(sandbox({ mode: "jail" }), file))).toMatch(
      /^\/runs\/r1\/run\.json: sandbox\.mode: unknown confinement "jail" \(known: bwrap, none/,
    );
    expect(badInput(() => confinementOf(sandbox({ mode: "bwrap", verifier: "jail" }), file))).toMatch(
      /^\/runs\/r1\/run\.json: sandbox\.verifier: unknown confinement "jail"/,
    );
  });

  it("a queue job carries the agent's confinement by mode and the worker rebuilds the same", () => {
    const { agent } = confinementOf(
      sandbox({ mode: "bwrap", network: "model", allowed_endpoints: ["https://api.anthropic.com:443"] }),
      file,
    );
    const job = agentConfinementJob(agent);
    expect(job).toEqual({ mode: "bwrap", network: false, allowed_endpoints: ["https://api.anthropic.com:443"] });
    expect(agentConfinementOfJob(JSON.parse(JSON.stringify(job)) as typeof job, "session job")).toEqual(agent);
    expect(agentConfinementJob(null)).toBeNull();
    // Jobs of coordinators before the mode was sent: the default backend.
    expect(agentConfinementOfJob({ network: true }, "session job")?.backend.mode).toBe("bwrap");
    expect(badInput(() => agentConfinementOfJob({ mode: "jail", network: true }, "session job"))).toMatch(
      /^session job: sandbox\.mode: unknown confinement "jail"/,
    );
  });
});
