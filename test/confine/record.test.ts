import { describe, expect, it } from "vitest";
import { hardeningWarning } from "../../src/confine/record.js";
import { recordOf as sandboxRecord } from "./fixtures/record-of.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

describe.skipIf(missingTool)("run.json's sandbox record", () => {
  it("records bwrap for every real CLI agent, with its install and configuration named as enforced", () => {
    for (const agent of ["opencode", "claude-code", "codex", "gemini"]) {
      const r = sandboxRecord("bwrap", "none", agent);
      expect(r.mode, agent).toBe("bwrap");
      expect(r.network).toBe("none");
      expect(r.enforced.join("\n")).toMatch(/CLI's own install .* read-only/);
      expect(r.enforced.join("\n")).toContain("no network");
    }
  });

  it("records what --sandbox none leaves open, and names no CLI install for command", () => {
    expect(sandboxRecord("none", "on", "codex")).toMatchObject({ mode: "none", enforced: [] });
    const command = sandboxRecord("bwrap", "on", "command");
    expect(command.mode).toBe("bwrap");
    expect(command.enforced.join("\n")).not.toContain("CLI's own install");
  });
});

describe.skipIf(missingTool)("run.json's network record", () => {
  it("--network model records the origins the agent may reach; an agent that names none it can be held to is bad input", () => {
    const r = sandboxRecord("bwrap", "model", "opencode", [
      "http://127.0.0.1:4000/v1",
      "https://api.anthropic.com",
      "http://localhost:4000/other",
    ]);
    expect(r).toMatchObject({
      network: "model",
      allowed_endpoints: ["http://127.0.0.1:4000", "https://api.anthropic.com:443", "http://localhost:4000"],
    });
    expect(r.enforced.join("\n")).toContain(
      "only the model endpoints http://127.0.0.1:4000, https://api.anthropic.com:443, http://localhost:4000",
    );
    expect(sandboxRecord("bwrap", "model", "oracle", [])).toMatchObject({ network: "model", allowed_endpoints: [] });
    expect(() => sandboxRecord("bwrap", "model", "opencode", undefined)).toThrow(
      /--network: model: agent opencode names no model endpoint .*--network on/,
    );
    expect(sandboxRecord("bwrap", "on", "command").not_enforced.join("\n")).toContain("every host and local port");
    expect(sandboxRecord("bwrap", "on", "command").allowed_endpoints).toBeUndefined();
  });
});

describe.skipIf(missingTool)("the sandbox's hardening in run.json", () => {
  it("records the host user, user namespace, capabilities and syscall filter, and says in one line what is missing", () => {
    const r = sandboxRecord("bwrap", "on", "command");
    expect(Object.keys(r.hardening ?? {})).toEqual(["host_user", "user_namespace", "capabilities", "syscall_filter"]);
    // Never host root: as root, an unprivileged uid; else the caller's own.
    expect(r.hardening?.host_user).toMatchObject({
      applied: true,
      detail: process.getuid?.() === 0 ? expect.stringContaining("host uid/gid 2000000000") : expect.stringContaining("(not root)"),
    });
    const rootBehindUserns = {
      ...r,
      hardening: { ...r.hardening!, host_user: { applied: false, detail: "sandbox processes are host root behind their user namespace" } },
    };
    expect(hardeningWarning(rootBehindUserns)).toMatch(/^sandbox weaker than it should be: sandbox processes are host root/);
    expect(sandboxRecord("none", "on", "command").hardening).toBeUndefined();
    const applied = { applied: true, detail: "ok" };
    const whole = { ...r, hardening: { user_namespace: applied, capabilities: applied, syscall_filter: applied } };
    expect(hardeningWarning(whole)).toBeNull();
    const noUserns = {
      ...whole,
      hardening: {
        ...whole.hardening,
        user_namespace: { applied: false, detail: "no user namespace can be made here (bwrap: No permissions to create new namespace)" },
      },
    };
    expect(hardeningWarning(noUserns)).toBe(
      "sandbox weaker than it should be: no user namespace can be made here (bwrap: No permissions to create new namespace) (run.json sandbox.hardening)",
    );
  });
});
