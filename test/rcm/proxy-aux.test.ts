import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAgent } from "../../src/agents/registry.js";
import type { AgentContext, AgentRequest, AgentFactory } from "../../src/agents/types.js";
import type { AgentEvent } from "../../src/formats/trajectory.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { parseScript } from "../../src/mock-model/script.js";
import { startRcmProxy } from "../../src/rcm/proxy/server.js";
import { rcmProxiedAgent } from "../../src/run/rcm-proxy-agent.js";
import { tempDir } from "../helpers/temp.js";

type Json = Record<string, unknown>;
const tools = [{ type: "function", function: { name: "bash", description: "run", parameters: { type: "object", properties: {} } } }];
const requests = [
  "Repository: demo\nWorkspace: /r/w00\n\nALPHA-1: create alpha.py with the constant A.",
  "Repository: demo\nWorkspace: /r/w01\n\nBETA-1: create beta.py with the constant B.",
  // Names nothing: the router is unsure (below the threshold), so the auxiliary model is asked.
  "ok, go on",
];

/**
 * A test double of a CLI agent that speaks OpenAI chat completions to its `base_url`: every request
 * sends the whole conversation, with tools, as real CLIs do.
 */
const chatAgent: AgentFactory<unknown> = {
  name: "test-chat-http",
  description: "a test double speaking OpenAI chat to base_url",
  capabilities: { confinable: false, limits: false, harnessSide: true, submission: "checkout" },
  parse: (o) => o,
  create: (o) => ({
    name: "test-chat-http",
    endpoints: [],
    startConversation: async () => {
      const messages: Json[] = [{ role: "system", content: "You are a coding agent." }];
      return {
        send: async (req: AgentRequest, onEvent) => {
          messages.push({ role: "user", content: req.message });
          const res = await fetch(`${(o as { base_url: string }).base_url}/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: "Bearer agent-key" },
            body: JSON.stringify({ model: "agent-model", messages, tools, stream: false }),
          });
          const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
          messages.push({ role: "assistant", content: body.choices[0]!.message.content });
          onEvent({ kind: "model_call", model: "agent-model", input_tokens: 1, output_tokens: 1 });
          return { outcome: "yielded" };
        },
        close: async () => undefined,
      };
    },
  }),
};

let mock: MockModelServer;
beforeAll(async () => {
  registerAgent(chatAgent);
  mock = await startMockModel({
    script: parseScript({
      turns: [{ requests: "auxiliary", text: '{"task": "t1", "confidence": 0.95}', usage: { prompt_tokens: 321, completion_tokens: 12 } }],
      fallback: "Working on it.",
    }),
  });
});
afterAll(async () => {
  await mock.close();
});

const auxRequests = () => mock.requests().filter((r) => !(r.body as Json).tools);

describe("the proxy's auxiliary model is the agent's own upstream", () => {
  it("an undecided request is routed by the agent's model through the upstream, in the agent's wire format; its usage counts as the session's", async () => {
    const agent = rcmProxiedAgent("test-chat-http", { base_url: mock.baseURL }, "rcm");
    const ctx = { logDir: tempDir("switch-swe-proxy-aux-") } as AgentContext;
    const conversation = await agent.startConversation(ctx);
    const events: AgentEvent[] = [];
    const before = mock.requests().length;
    for (const [index, message] of requests.entries()) {
      const r = await conversation.send(
        {
          index,
          message,
          workspace: "w00",
          workspacePath: "/r/w00",
          continuation: false,
          turn: index,
          timeoutMs: 30_000,
          signal: new AbortController().signal,
        },
        (e) => events.push(e),
      );
      expect(r.outcome).toBe("yielded");
    }
    await conversation.close();
    // Exactly one routing call reached the upstream: same path and model, no tools, the routing question and the tasks.
    const aux = auxRequests().filter((r) => r.seq >= before);
    expect(aux).toHaveLength(1);
    expect(aux[0]!.path).toBe("/v1/chat/completions");
    const body = aux[0]!.body as { model: string; messages: Array<{ role: string; content: string }> };
    expect(body.model).toBe("agent-model");
    expect(body.messages[0]!.content).toMatch(/You route a new user request/);
    expect(body.messages[1]!.content).toContain("ALPHA-1");
    expect(body.messages[1]!.content).toMatch(/New request:\nok, go on/);
    // Its answer decided the routing (task t1, by the auxiliary model) ...
    const contexts = events.filter((e): e is Extract<AgentEvent, { kind: "context" }> => e.kind === "context");
    const last = contexts.at(-1)!.entry as { step: { active: string; confidence: number } };
    expect(last.step).toMatchObject({ active: "t1", confidence: 0.95 });
    // ... and its tokens are the session's usage: one auxiliary model_call with what the upstream reported.
    const auxCalls = events.filter((e) => e.kind === "model_call" && e.auxiliary === true);
    expect(auxCalls).toEqual([expect.objectContaining({ model: "agent-model", input_tokens: 321, output_tokens: 12, auxiliary: true })]);
  });

  it("keeps to the budget, and --aux off makes no call", async () => {
    for (const [aux, budget, calls] of [
      ["upstream", 0, 0],
      ["off", 20, 0],
      ["upstream", 20, 1],
    ] as const) {
      // Routing calls only (the state-writing calls are model-state.test.ts's).
      const p = await startRcmProxy({
        upstream: mock.baseURL,
        mode: "rcm",
        aux,
        ...(aux === "upstream" ? { state: "extractive" as const } : {}),
        rcm: { auxBudget: { calls: budget, tokens: 50_000 } },
      });
      const before = mock.requests().length;
      const messages: Json[] = [];
      for (const text of requests) {
        messages.push({ role: "user", content: text });
        const res = await fetch(`${p.baseURL}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "m", messages, tools }),
        });
        messages.push({
          role: "assistant",
          content: ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content,
        });
      }
      await p.close();
      expect(
        auxRequests().filter((r) => r.seq >= before),
        `aux ${aux}, budget ${budget}`,
      ).toHaveLength(calls);
    }
  });
});
