import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import { commandAgent, eventFromLine } from "../../src/agents/command.js";
import { programOf, resolveOnPath } from "../../src/agents/command-path.js";
import { parseAgentOptionPairs } from "../../src/agents/options.js";
import { agentFactory, agentNames, createAgent } from "../../src/agents/registry.js";
import type { AgentContext, AgentRequest } from "../../src/agents/types.js";
import type { AgentEvent } from "../../src/formats/trajectory.js";
import { tempDir } from "../helpers/synthetic-dataset.js";
import { running } from "../run/fixture.js";

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return (e as Error).message;
  }
  throw new Error("expected an InputError");
}

describe("agent options and the registry", () => {
  it("parses key=value pairs and rejects malformed or repeated ones", () => {
    expect(parseAgentOptionPairs(["forget=0.5", "command=a=b c"])).toEqual({ forget: "0.5", command: "a=b c" });
    expect(message(() => parseAgentOptionPairs(["forget"]))).toBe('--agent-opt: "forget" is not key=value');
    expect(message(() => parseAgentOptionPairs(["a=1", "a=2"]))).toBe("--agent-opt: a: given twice");
  });

  it("validates options per agent: unknown keys, ranges, required keys", () => {
    expect(agentNames()).toEqual(expect.arrayContaining(["command", "nop", "oracle"]));
    expect(message(() => agentFactory("claude"))).toBe(`--agent: unknown agent "claude" (known: ${agentNames().join(", ")})`);
    expect(message(() => createAgent("oracle", { forgett: "1" }))).toBe("--agent-opt: forgett: unknown option of agent oracle");
    expect(message(() => createAgent("oracle", { forget: "1.5" }))).toBe("--agent-opt: forget: must be between 0 and 1");
    expect(message(() => createAgent("oracle", { forget: "x" }))).toMatch(/^--agent-opt: forget: /);
    expect(message(() => createAgent("nop", { a: "1" }))).toBe("--agent-opt: a: unknown option of agent nop");
    expect(message(() => createAgent("command", {}))).toBe("--agent-opt: command: required: --agent-opt command=CMD");
    expect(message(() => createAgent("command", { command: "no-such-agent-binary-xyz --flag" }))).toBe(
      '--agent-opt: command: program "no-such-agent-binary-xyz" not found on PATH',
    );
    expect(message(() => createAgent("command", { command: "/no/such/agent run" }))).toBe(
      '--agent-opt: command: program "/no/such/agent" not found',
    );
    expect(createAgent("oracle", { forget: "0.25" }).name).toBe("oracle");
    expect(createAgent("command", { command: "FOO=1 sh -c true" }).name).toBe("command");
  });

  it("finds the program of a command line only when it can be told without a shell", () => {
    expect(programOf("A=1 B=2 opencode run --format json")).toBe("opencode");
    expect(programOf("'/usr/bin/env' x")).toBe("/usr/bin/env");
    expect(programOf("exec claude -p")).toBeNull();
    expect(programOf("$AGENT run")).toBeNull();
    expect(programOf("./agent.sh")).toBeNull();
    expect(resolveOnPath("sh")).toMatch(/\/sh$/);
    expect(resolveOnPath("no-such-binary-xyz")).toBeNull();
  });
});

describe("the command agent", () => {
  function setup(command: string) {
    const root = tempDir("switch-swe-cmd-");
    const workspace = join(root, "w00");
    mkdirSync(workspace);
    const ctx = {
      session: "t01.switch",
      conversationId: "conv-1",
      stateDir: join(root, "state"),
      logDir: join(root, "logs"),
    } as AgentContext;
    const agent = createAgent("command", { command });
    const request = (over: Partial<AgentRequest> = {}): AgentRequest => ({
      index: 3,
      message: "Repository: demo\nWorkspace: x\n\nDo it.",
      workspace: "w00",
      workspacePath: workspace,
      continuation: false,
      turn: 0,
      timeoutMs: 10_000,
      signal: new AbortController().signal,
      ...over,
    });
    return { root, workspace, ctx, agent, request };
  }

  it("gets the message on stdin, the SWITCH_SWE_* variables and the workspace as cwd; stdout lines become events", async () => {
    const cmd = [
      `cat > got-message.txt`,
      `env | grep ^SWITCH_SWE_ | sort > got-env.txt`,
      `pwd > got-cwd.txt`,
      `echo '{"kind":"model_call","input_tokens":10,"output_tokens":5,"cached_input_tokens":100,"cost_usd":0.01}'`,
      `echo '{"kind":"tool_call","name":"edit","paths":["a.py"]}'`,
      `echo 'plain words'`,
      `echo '{"kind":"model_call","input_tokens":"many"}'`,
      `echo '{not json'`,
    ].join("\n");
    const { workspace, ctx, agent, request } = setup(cmd);
    const conv = await agent.startConversation(ctx);
    const events: AgentEvent[] = [];
    const r = await conv.send(request(), (e) => events.push(e));
    expect(r).toEqual({ outcome: "yielded" });
    expect(readFileSync(join(workspace, "got-message.txt"), "utf8")).toBe("Repository: demo\nWorkspace: x\n\nDo it.");
    expect(readFileSync(join(workspace, "got-cwd.txt"), "utf8").trim()).toBe(workspace);
    const env = readFileSync(join(workspace, "got-env.txt"), "utf8");
    expect(env).not.toContain("SWITCH_SWE_SESSION");
    for (const line of [
      `SWITCH_SWE_WORKSPACE=${workspace}`,
      "SWITCH_SWE_REQUEST_INDEX=3",
      "SWITCH_SWE_CONVERSATION=conv-1",
      "SWITCH_SWE_TURN=0",
      "SWITCH_SWE_CONTINUATION=0",
      `SWITCH_SWE_STATE_DIR=${ctx.stateDir}`,
    ]) {
      expect(env).toContain(`${line}\n`);
    }
    expect(events).toEqual([
      { kind: "model_call", input_tokens: 10, output_tokens: 5, cached_input_tokens: 100, cost_usd: 0.01 },
      { kind: "tool_call", name: "edit", paths: ["a.py"] },
      { kind: "text", text: "plain words" },
      { kind: "text", text: '{"kind":"model_call","input_tokens":"many"}' },
      { kind: "text", text: "{not json" },
    ]);
    expect(eventFromLine("   ")).toBeNull();
  });

  it("on a timeout kills the whole process tree, children included", async () => {
    const { ctx, agent, request } = setup(`sh -c 'sleep 30 & echo $! > "${"$SWITCH_SWE_STATE_DIR"}/child"; wait'`);
    const conv = await agent.startConversation(ctx);
    const t0 = Date.now();
    const r = await conv.send(request({ timeoutMs: 500 }), () => undefined);
    expect(r.outcome).toBe("timeout");
    expect(Date.now() - t0).toBeLessThan(5000);
    const child = Number(readFileSync(join(ctx.stateDir, "child"), "utf8"));
    await new Promise((res) => setTimeout(res, 200));
    expect(running(child)).toBe(false);
  });

  it("a non-zero exit is an agent error with the stderr tail; a program the shell cannot find is an infrastructure fault", async () => {
    const failing = setup("echo boom >&2; exit 3");
    const c1 = await failing.agent.startConversation(failing.ctx);
    const r1 = await c1.send(failing.request(), () => undefined);
    expect(r1.outcome).toBe("agent_error");
    expect(r1.detail).toBe("exited at once, no output; exit 3: boom");
    expect(readFileSync(join(failing.ctx.logDir, "stderr.log"), "utf8")).toContain("boom");

    const missing = setup("env /no/such/agent-binary");
    const c2 = await missing.agent.startConversation(missing.ctx);
    const r2 = await c2.send(missing.request(), () => undefined);
    expect(r2.outcome).toBe("infra_fault");
    expect(r2.detail).toMatch(/^command cannot start \(exit 127\)/);
  });

  it("stops at once when the run is interrupted", async () => {
    const { ctx, agent, request } = setup("sleep 30");
    const conv = await agent.startConversation(ctx);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    const t0 = Date.now();
    await conv.send(request({ signal: stop.signal }), () => undefined);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(existsSync(join(ctx.stateDir, "pid"))).toBe(true);
  });

  it("is registered with a description", () => {
    expect(commandAgent.description).toMatch(/sh -c/);
  });
});
