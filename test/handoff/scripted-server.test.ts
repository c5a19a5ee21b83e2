import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "./scripted-server.js";

// The run tests trust this server to speak the OpenAI chat API as the AI SDK expects it.
describe("the scripted OpenAI-compatible server", () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("answers plain and streamed requests from its script and records them", async () => {
    server = await startScriptedServer((i) => (i === 2 ? { status: 500, error: "boom" } : { text: `reply ${i}` }));
    const model = createOpenAICompatible({ name: "local", baseURL: server.baseURL, includeUsage: true }).chatModel("m");
    const plain = await generateText({ model, prompt: "hello", maxRetries: 0 });
    expect(plain.text).toBe("reply 0");
    expect(plain.usage.inputTokens).toBe(100);
    expect(plain.response.modelId).toBe("m-2025-01-01");

    const streamed = streamText({ model, prompt: "again", maxRetries: 0 });
    expect(await streamed.text).toBe("reply 1");
    expect((await streamed.usage).outputTokens).toBe(20);
    expect(server.requests[1]!.body.stream).toBe(true);

    await expect(generateText({ model, prompt: "fail", maxRetries: 0 })).rejects.toThrow(/boom/);
    expect(server.requests.map((r) => r.body.messages?.[0]?.content)).toEqual(["hello", "again", "fail"]);
  });
});
