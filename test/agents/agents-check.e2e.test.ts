import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findCli } from "../../src/agents/cli-options.js";
import { codexAgent } from "../../src/agents/codex.js";
import { claudeCodeAgent } from "../../src/agents/claude-code.js";
import { packageRoot } from "../../src/core/package-paths.js";
import { runProcess } from "../../src/core/process.js";
import { parseScript, type ScriptInput } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { installedClaude } from "../helpers/agent-cli.js";
import { tempDir } from "../helpers/temp.js";
import { conversationContext, converse } from "./helpers/converse.js";

const cliMain = join(packageRoot, "dist", "cli", "main.js");
let server: MockModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(script: ScriptInput) {
  server = await startMockModel({ script: parseScript(script) });
  return server;
}

async function cli(args: string[]) {
  const r = await runProcess(process.execPath, [cliMain, ...args], { timeoutMs: 300_000 });
  return { code: r.code, out: `${r.stdout}${r.stderr}` };
}

describe("switch-swe agents check (real CLIs against the scripted server)", () => {
  it("reports the CLI and its version, the model's answer, events, usage and a working resume", async () => {
    const s = await serve({
      turns: [
        { match: "connectivity check", text: "ready", usage: { prompt_tokens: 900, completion_tokens: 2 } },
        { match: "second message", text: "ready", usage: { prompt_tokens: 950, completion_tokens: 2 } },
      ],
    });
    const r = await cli([
      "agents",
      "check",
      "--agent",
      "claude-code",
      "--agent-opt",
      `bin=${installedClaude()}`,
      "--agent-opt",
      `base_url=${s.origin}`,
      "--agent-opt",
      "model=claude-sonnet-4-5",
    ]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^ok\s+cli\s+claude-code 2\.1\.332 at \S+claude/m);
    expect(r.out).toMatch(/^ok\s+model\s+answered: "ready"/m);
    expect(r.out).toMatch(/^ok\s+usage\s+1 model call\(s\), 902 tokens/m);
    expect(r.out).toMatch(
      /^ok\s+resume\s+second request answered in the same conversation \(the model recalled the first answer\); 1 model call\(s\), 952 tokens/m,
    );
    // The resumed request carried the first exchange.
    const last = JSON.stringify(s.requests().at(-1)!.body);
    expect(last).toContain("connectivity check");
  }, 300_000);

  it("a model API that refuses is an agent error with the API's message; the check fails with exit 1", async () => {
    // The API refuses every request (the CLI may retry).
    const s = await serve(
      Array.from({ length: 20 }, () => ({ requests: "any" as const, error: { status: 400, message: "model not allowed for this key" } })),
    );
    const r = await cli([
      "agents",
      "check",
      "--agent",
      "claude-code",
      "--agent-opt",
      `bin=${installedClaude()}`,
      "--agent-opt",
      `base_url=${s.origin}`,
    ]);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/^FAIL model\s+agent_error: .*model not allowed for this key/m);
  }, 300_000);

  it("a missing CLI is bad input naming the package to install", async () => {
    const r = await cli(["agents", "check", "--agent", "codex", "--agent-opt", "bin=/no/such/codex"]);
    expect(r.code).toBe(2);
    expect(r.out).toContain("--agent-opt: bin: /no/such/codex not found or not executable");
    expect(() => findCli({ command: "no-such-cli-switch-swe", npm: "@example/cli", version: "1.2.3" }, undefined)).toThrow(
      /no-such-cli-switch-swe not found: install it with npm install -g @example\/cli@1\.2\.3/,
    );
  });
});

describe("model API errors are agent errors in the trajectory, never infrastructure faults", () => {
  it("codex: a refused request ends the request as agent_error with an error event", async () => {
    const s = await serve(
      Array.from({ length: 20 }, () => ({ requests: "any" as const, error: { status: 400, message: "unsupported parameter: foo" } })),
    );
    const agent = codexAgent.create(codexAgent.parse({ base_url: s.baseURL }));
    const [r] = await converse(agent, conversationContext(tempDir("switch-swe-codex-err-"), "c"), [{ ws: "w00", text: "go" }]);
    expect(r!.result.outcome).toBe("agent_error");
    expect(r!.result.detail).toContain("unsupported parameter: foo");
    expect(
      r!.events
        .filter((e) => e.kind === "error")
        .map((e) => e.kind === "error" && e.message)
        .join(),
    ).toContain("unsupported parameter: foo");
  }, 300_000);

  it("claude-code: options are checked before anything runs", () => {
    expect(() => claudeCodeAgent.parse({ effort: "extreme", base_url: "http://127.0.0.1:1" })).toThrow(/effort/);
    expect(() => claudeCodeAgent.parse({ colour: "red", base_url: "http://127.0.0.1:1" })).toThrow(
      /colour: unknown option of agent claude-code/,
    );
    expect(() => claudeCodeAgent.parse({ arg: "[1]", base_url: "http://127.0.0.1:1", bin: installedClaude() })).toThrow(
      /arg: must be a JSON list of strings/,
    );
    expect(claudeCodeAgent.parse({ arg: '["--max-turns", "5"]', base_url: "http://127.0.0.1:1", bin: installedClaude() }).extra).toEqual([
      "--max-turns",
      "5",
    ]);
  });
});
