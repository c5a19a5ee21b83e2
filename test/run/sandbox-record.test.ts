import { describe, expect, it } from "vitest";
import { sandboxRecord } from "../../src/run/sandbox-record.js";
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
