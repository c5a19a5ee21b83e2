import type { ServerResponse } from "node:http";
import { partsText, sseStream, writeJson, type Answer, type Protocol } from "./answer.js";

function usageObject(a: Answer) {
  return {
    prompt_tokens: a.usage.inputTokens,
    completion_tokens: a.usage.outputTokens,
    total_tokens: a.usage.inputTokens + a.usage.outputTokens,
    prompt_tokens_details: { cached_tokens: a.usage.cachedTokens },
    completion_tokens_details: { reasoning_tokens: a.usage.reasoningTokens },
  };
}

function toolCallsWire(a: Answer, id: string) {
  return a.toolCalls.map((c, i) => ({
    index: i,
    id: `call_${id}_${i}`,
    type: "function" as const,
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
}

/** A non-streaming `chat.completion` object. */
export function completionBody(a: Answer, id: string, created: number): unknown {
  const tool_calls = toolCallsWire(a, id).map(({ index: _index, ...c }) => c);
  return {
    id: `chatcmpl-${id}`,
    object: "chat.completion",
    created,
    model: a.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: a.text === "" && tool_calls.length > 0 ? null : a.text,
          ...(tool_calls.length ? { tool_calls } : {}),
        },
        finish_reason: tool_calls.length ? "tool_calls" : "stop",
      },
    ],
    usage: usageObject(a),
  };
}

/** The `data:` payloads of a streamed answer: role, text, tool calls, finish reason, usage (always sent last). */
export function streamChunks(a: Answer, id: string, created: number): unknown[] {
  const base = { id: `chatcmpl-${id}`, object: "chat.completion.chunk", created, model: a.model };
  const chunks: unknown[] = [{ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] }];
  if (a.text !== "") chunks.push({ ...base, choices: [{ index: 0, delta: { content: a.text }, finish_reason: null }] });
  const calls = toolCallsWire(a, id);
  if (calls.length > 0) chunks.push({ ...base, choices: [{ index: 0, delta: { tool_calls: calls }, finish_reason: null }] });
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: calls.length ? "tool_calls" : "stop" }] });
  chunks.push({ ...base, choices: [], usage: usageObject(a) });
  return chunks;
}

/** OpenAI chat completions: `POST …/chat/completions`, streamed (usage in the last chunk) or not. */
export const openaiChat: Protocol = {
  name: "openai-chat",
  kind: "generate",
  accepts: (method, path) => method === "POST" && /\/chat\/completions$/.test(path),
  view: (body) => {
    const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : [];
    const lastUser = [...messages].reverse().find((m) => m.role === "user");
    return {
      lastUserText: partsText(lastUser?.content),
      hasTools: Array.isArray(body.tools) && body.tools.length > 0,
      ...(typeof body.model === "string" ? { model: body.model } : {}),
      stream: body.stream === true,
      prompt: messages,
    };
  },
  respond: (res: ServerResponse, a, id, { stream }) => {
    const created = Math.floor(Date.now() / 1000);
    if (!stream) return writeJson(res, 200, completionBody(a, id, created));
    const s = sseStream(res);
    for (const chunk of streamChunks(a, id, created)) s.send(null, chunk);
    s.end("data: [DONE]\n\n");
  },
  error: (res, status, message) => writeJson(res, status, { error: { message, type: "mock_error" } }),
};
