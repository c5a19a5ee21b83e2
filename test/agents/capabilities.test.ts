import { describe, expect, it } from "vitest";
import { agentCapabilities, agentNames, cliAgentPackages, registerAgent } from "../../src/agents/registry.js";
import { defaultLimits } from "../../src/confine/limits.js";
import { limitsRecord } from "../../src/confine/limits-record.js";
import { recordOf as sandboxRecord } from "../confine/fixtures/record-of.js";
import { skipWithout } from "../helpers/tools.js";
import { fakeAgent } from "./fixtures/fake-agents.js";

// sandboxRecord probes bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

/**
 * Agents declare what they can be held to where they are registered; the records read the declaration,
 * never a list of names. A new agent is one file and one registry line, and one that cannot be confined
 * or limited is recorded so, not silently taken for confined.
 */
describe.skipIf(missingTool)("agent capabilities, declared at registration", () => {
  registerAgent(fakeAgent("fake-free", { confinable: false, limits: false, harnessSide: false, submission: "agent" }));
  registerAgent(
    fakeAgent("fake-boxed", {
      confinable: true,
      limits: true,
      harnessSide: false,
      submission: "checkout",
      cli: { command: "fake-cli", npm: "fake-cli", version: "1.0.0" },
    }),
  );

  it("a registered fake is an agent like the others: named, with its capabilities, and its CLI among doctor's packages", () => {
    expect(agentNames()).toEqual(expect.arrayContaining(["fake-free", "fake-boxed", "oracle", "codex"]));
    expect(agentCapabilities("fake-boxed")).toMatchObject({ confinable: true, limits: true });
    expect(cliAgentPackages().map(([n]) => n)).toEqual(["opencode", "claude-code", "codex", "gemini", "fake-boxed"]);
    expect(() => registerAgent(fakeAgent("oracle", agentCapabilities("oracle")))).toThrow(/registered already/);
  });

  it("one that declares no confinement runs unconfined and run.json says so; its limits are recorded as not enforced", () => {
    const free = sandboxRecord("bwrap", "on", "fake-free");
    expect(free.mode).toBe("none");
    expect(free.not_enforced[0]).toBe("agent fake-free cannot be started in the sandbox yet: it runs unconfined");
    const limits = limitsRecord(defaultLimits, { name: "fake-free", limits: agentCapabilities("fake-free").limits }, false);
    for (const r of [limits.cpus, limits.memory, limits.pids]) expect(r.status).not.toBe("enforced");
  });

  it("one that declares confinement and a CLI is sandboxed, with its CLI install named as enforced", () => {
    const boxed = sandboxRecord("bwrap", "none", "fake-boxed");
    expect(boxed.mode).toBe("bwrap");
    expect(boxed.enforced.join("\n")).toMatch(/CLI's own install .* read-only/);
    expect(sandboxRecord("bwrap", "none", "command").enforced.join("\n")).not.toMatch(/CLI's own install/);
  });
});
