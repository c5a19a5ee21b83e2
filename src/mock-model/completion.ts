import type { ScriptToolCall } from "./script.js";

/** What the server answers to one request, before it is put into the wire format. */
export interface Answer {
  model: string;
  text: string;
  toolCalls: ScriptToolCall[];
  usage: { prompt_tokens: number; completion_tokens: number; cached_tokens: number; reasoning_tokens: number };
}

/** Text of an OpenAI chat message content (a string or a list of parts). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p: unknown) => (p && typeof p === "object" && "text" in p && typeof p.text === "string" ? p.text : ""))
      .join("");
  }
  return "";
}

/** A rough token count (4 characters a token): the mock has no tokenizer of any real model. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function usageObject(a: Answer) {
  return {
    prompt_tokens: a.usage.prompt_tokens,
    completion_tokens: a.usage.completion_tokens,
    total_tokens: a.usage.prompt_tokens + a.usage.completion_tokens,
    prompt_tokens_details: { cached_tokens: a.usage.cached_tokens },
    completion_tokens_details: { reasoning_tokens: a.usage.reasoning_tokens },
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
        message: { role: "assistant", content: a.text === "" && tool_calls.length > 0 ? null : a.text, ...(tool_calls.length ? { tool_calls } : {}) },
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
