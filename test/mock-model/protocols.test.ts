import { afterEach, describe, expect, it } from "vitest";
import { parseScript, type ScriptInput } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";

let server: MockModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const msg = "Repository: r\nWorkspace: /tmp/ws/w02\n\nPlease fix the parser.";
const script: ScriptInput = [
  {
    match: "fix the parser",
    tool_calls: [{ name: "Edit", arguments: { file_path: "{{workspace}}/p.py", text: "x" } }],
    usage: { prompt_tokens: 1000, completion_tokens: 50, cached_tokens: 600, cache_write_tokens: 100, reasoning_tokens: 20 },
  },
  { match: "fix the parser", text: "Fixed in {{workspace}}.", usage: { prompt_tokens: 1200, completion_tokens: 30 } },
];

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server!.origin}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** An SSE body as a list of {event, data}. */
async function events(res: Response): Promise<{ event: string | null; data: Record<string, unknown> }[]> {
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((b) => b.trim() !== "")
    .map((b) => {
      const event = /^event: (.+)$/m.exec(b)?.[1] ?? null;
      const data = /^data: (.+)$/m.exec(b)![1]!;
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

describe("mock-model: Anthropic Messages", () => {
  it("streams tool_use blocks and text with usage in message_start / message_delta; the tool result turn is not user text", async () => {
    server = await startMockModel({ script: parseScript(script) });
    const tools = [{ name: "Edit", input_schema: { type: "object" } }];
    const first = await events(
      await post("/v1/messages?beta=true", {
        model: "claude-x",
        stream: true,
        tools,
        messages: [{ role: "user", content: [{ type: "text", text: msg }] }],
      }),
    );
    expect(first.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(first.every((e) => e.data.type === e.event)).toBe(true);
    const start = first[0]!.data.message as { model: string; usage: Record<string, number> };
    expect(start.model).toBe("claude-x");
    // input_tokens excludes cache reads and writes: 1000 - 600 - 100.
    expect(start.usage).toMatchObject({ input_tokens: 300, cache_read_input_tokens: 600, cache_creation_input_tokens: 100 });
    expect(first[1]!.data.content_block).toMatchObject({ type: "tool_use", name: "Edit", input: {} });
    expect(JSON.parse((first[2]!.data.delta as { partial_json: string }).partial_json)).toEqual({
      file_path: "/tmp/ws/w02/p.py",
      text: "x",
    });
    expect(first[4]!.data).toMatchObject({ delta: { stop_reason: "tool_use" }, usage: { output_tokens: 50 } });

    const toolResult = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_0_0", content: "ok" }] };
    const second = (await (
      await post("/v1/messages", {
        model: "claude-x",
        tools,
        messages: [{ role: "user", content: msg }, { role: "assistant", content: [] }, toolResult],
      })
    ).json()) as Record<string, unknown>;
    expect(second).toMatchObject({
      type: "message",
      role: "assistant",
      stop_reason: "end_turn",
      content: [{ type: "text", text: "Fixed in /tmp/ws/w02." }],
      usage: { input_tokens: 1200, output_tokens: 30 },
    });
    expect(server.requests().map((r) => [r.protocol, r.turn])).toEqual([
      ["anthropic-messages", 0],
      ["anthropic-messages", 1],
    ]);
    expect(server.requests()[0]!.usage).toEqual({
      inputTokens: 1000,
      outputTokens: 50,
      cachedTokens: 600,
      cacheWriteTokens: 100,
      reasoningTokens: 20,
    });
  });

  it("counts tokens without using a turn, and answers a scripted error in Anthropic's error shape", async () => {
    server = await startMockModel({ script: parseScript([{ error: { status: 529, message: "overloaded" } }]) });
    const count = (await (
      await post("/v1/messages/count_tokens", { model: "m", messages: [{ role: "user", content: "hello there" }] })
    ).json()) as { input_tokens: number };
    expect(count.input_tokens).toBeGreaterThan(0);
    expect(server.unusedTurns()).toEqual([0]);
    const res = await post("/v1/messages", {
      model: "m",
      stream: true,
      tools: [{ name: "Bash" }],
      messages: [{ role: "user", content: "x" }],
    });
    expect(res.status).toBe(529);
    expect(await res.json()).toEqual({ type: "error", error: { type: "api_error", message: "overloaded" } });
  });
});

describe("mock-model: OpenAI Responses", () => {
  it("streams function calls and text with usage in response.completed", async () => {
    server = await startMockModel({ script: parseScript(script) });
    const tools = [{ type: "function", name: "Edit", parameters: { type: "object" } }];
    const input = [{ type: "message", role: "user", content: [{ type: "input_text", text: msg }] }];
    const first = await events(await post("/v1/responses", { model: "gpt-x", stream: true, tools, input }));
    expect(first.map((e) => e.event)).toEqual([
      "response.created",
      "response.output_item.added",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(first.every((e) => e.data.type === e.event)).toBe(true);
    expect(first[2]!.data.item).toMatchObject({ type: "function_call", name: "Edit", call_id: "call_0_0" });
    expect(JSON.parse((first[2]!.data.item as { arguments: string }).arguments)).toEqual({ file_path: "/tmp/ws/w02/p.py", text: "x" });
    expect((first[3]!.data.response as { usage: unknown }).usage).toEqual({
      input_tokens: 1000,
      input_tokens_details: { cached_tokens: 600 },
      output_tokens: 50,
      output_tokens_details: { reasoning_tokens: 20 },
      total_tokens: 1050,
    });
    const followUp = [
      ...input,
      { type: "function_call", call_id: "call_0_0", name: "Edit", arguments: "{}" },
      { type: "function_call_output", call_id: "call_0_0", output: "ok" },
    ];
    const second = await events(await post("/v1/responses", { model: "gpt-x", stream: true, tools, input: followUp }));
    const done = second.find((e) => e.event === "response.output_item.done")!.data.item as { type: string; content: { text: string }[] };
    expect(done.type).toBe("message");
    expect(done.content[0]!.text).toBe("Fixed in /tmp/ws/w02.");
    expect(second.some((e) => e.event === "response.output_text.delta" && e.data.delta === "Fixed in /tmp/ws/w02.")).toBe(true);
  });

  it("answers a call to a tool declared custom as a custom_tool_call with its input", async () => {
    server = await startMockModel({
      script: parseScript([{ tool_calls: [{ name: "apply_patch", arguments: { input: "*** Begin Patch\n*** End Patch\n" } }] }]),
    });
    const body = (await (
      await post("/v1/responses", { model: "m", tools: [{ type: "custom", name: "apply_patch" }], input: "go" })
    ).json()) as { output: unknown[] };
    expect(body.output).toEqual([
      expect.objectContaining({ type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch\n*** End Patch\n" }),
    ]);
  });
});

describe("mock-model: Gemini", () => {
  it("streams functionCall parts with usageMetadata in the last event; function responses are not user text", async () => {
    server = await startMockModel({ script: parseScript(script) });
    const tools = [{ functionDeclarations: [{ name: "Edit", parameters: { type: "object" } }] }];
    const contents = [{ role: "user", parts: [{ text: msg }] }];
    const first = await events(await post("/v1beta/models/gemini-x:streamGenerateContent?alt=sse", { contents, tools }));
    const last = first.at(-1)!.data as {
      candidates: { content: { parts: unknown[] }; finishReason: string }[];
      usageMetadata: unknown;
      modelVersion: string;
    };
    expect(last.candidates[0]!.content.parts).toEqual([
      { functionCall: { name: "Edit", args: { file_path: "/tmp/ws/w02/p.py", text: "x" } } },
    ]);
    expect(last.candidates[0]!.finishReason).toBe("STOP");
    expect(last.modelVersion).toBe("gemini-x");
    // promptTokenCount includes the cached part; candidatesTokenCount excludes thoughts (50 - 20).
    expect(last.usageMetadata).toEqual({
      promptTokenCount: 1000,
      candidatesTokenCount: 30,
      cachedContentTokenCount: 600,
      thoughtsTokenCount: 20,
      totalTokenCount: 1050,
    });
    const more = [
      ...contents,
      { role: "model", parts: [{ functionCall: { name: "Edit", args: {} } }] },
      { role: "user", parts: [{ functionResponse: { name: "Edit", response: { output: "ok" } } }] },
    ];
    const second = (await (await post("/v1beta/models/gemini-x:generateContent", { contents: more, tools })).json()) as {
      candidates: { content: { parts: { text: string }[] } }[];
    };
    expect(second.candidates[0]!.content.parts).toEqual([{ text: "Fixed in /tmp/ws/w02." }]);
    const count = (await (await post("/v1beta/models/gemini-x:countTokens", { contents })).json()) as { totalTokens: number };
    expect(count.totalTokens).toBeGreaterThan(0);
    expect(server.requests().map((r) => [r.protocol, r.turn])).toEqual([
      ["gemini", 0],
      ["gemini", 1],
      ["gemini-count-tokens", null],
    ]);
  });

  it("answers a scripted error in Google's error shape", async () => {
    server = await startMockModel({ script: parseScript([{ error: { status: 429, message: "quota" } }]) });
    const res = await post("/v1beta/models/g:streamGenerateContent?alt=sse", {
      contents: [{ role: "user", parts: [{ text: "x" }] }],
      tools: [{ functionDeclarations: [{ name: "t" }] }],
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({ error: { code: 429, message: "quota", status: "RESOURCE_EXHAUSTED" } });
  });
});
