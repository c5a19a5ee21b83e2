import { partsText, sseStream, writeJson, type Answer, type Protocol } from "./answer.js";

type Block = Record<string, unknown>;

/** Text of the last user message that holds text blocks (a message of tool results only is skipped). */
function lastUserText(messages: { role?: unknown; content?: unknown }[]): string {
  for (const m of [...messages].reverse()) {
    if (m.role !== "user") continue;
    const text = partsText(m.content, (p) => p.type === undefined || p.type === "text");
    if (text !== "") return text;
  }
  return "";
}

/** Usage as the Messages API reports it: input_tokens excludes cache reads and cache writes. */
function usage(a: Answer, outputTokens: number) {
  const u = a.usage;
  return {
    input_tokens: Math.max(0, u.inputTokens - u.cachedTokens - u.cacheWriteTokens),
    cache_creation_input_tokens: u.cacheWriteTokens,
    cache_read_input_tokens: u.cachedTokens,
    output_tokens: outputTokens,
  };
}

function contentBlocks(a: Answer, id: string): Block[] {
  const blocks: Block[] = [];
  if (a.text !== "") blocks.push({ type: "text", text: a.text });
  a.toolCalls.forEach((c, i) => blocks.push({ type: "tool_use", id: `toolu_${id}_${i}`, name: c.name, input: c.arguments }));
  return blocks;
}

function messageBody(a: Answer, id: string): Block {
  return {
    id: `msg_mock_${id}`,
    type: "message",
    role: "assistant",
    model: a.model,
    content: contentBlocks(a, id),
    stop_reason: a.toolCalls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: usage(a, a.usage.outputTokens),
  };
}

/**
 * Anthropic Messages: `POST /v1/messages` (SSE: message_start, content blocks of text and `tool_use`
 * with `input_json_delta`, message_delta with the output tokens, message_stop), and
 * `POST /v1/messages/count_tokens`.
 */
export const anthropicMessages: Protocol = {
  name: "anthropic-messages",
  kind: "generate",
  accepts: (method, path) => method === "POST" && /\/messages$/.test(path),
  view: (body) => {
    const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : [];
    return {
      lastUserText: lastUserText(messages),
      hasTools: Array.isArray(body.tools) && body.tools.length > 0,
      ...(typeof body.model === "string" ? { model: body.model } : {}),
      stream: body.stream === true,
      prompt: { system: body.system, messages },
    };
  },
  respond: (res, a, id, { stream }) => {
    if (!stream) return writeJson(res, 200, messageBody(a, id));
    const s = sseStream(res);
    const { content: _content, ...start } = messageBody(a, id);
    s.send("message_start", { type: "message_start", message: { ...start, content: [], stop_reason: null, usage: usage(a, 1) } });
    contentBlocks(a, id).forEach((block, index) => {
      if (block.type === "text") {
        s.send("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
        s.send("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } });
      } else {
        s.send("content_block_start", { type: "content_block_start", index, content_block: { ...block, input: {} } });
        s.send("content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
        });
      }
      s.send("content_block_stop", { type: "content_block_stop", index });
    });
    const stop = a.toolCalls.length > 0 ? "tool_use" : "end_turn";
    s.send("message_delta", {
      type: "message_delta",
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: a.usage.outputTokens },
    });
    s.send("message_stop", { type: "message_stop" });
    s.end();
  },
  error: (res, status, message) =>
    writeJson(res, status, {
      type: "error",
      error: { type: status === 429 ? "rate_limit_error" : status >= 500 ? "api_error" : "invalid_request_error", message },
    }),
};

/** `POST /v1/messages/count_tokens`: the same estimate the answers use. */
export const anthropicCountTokens: Protocol = {
  name: "anthropic-count-tokens",
  kind: "count",
  accepts: (method, path) => method === "POST" && /\/messages\/count_tokens$/.test(path),
  view: (body) => ({ lastUserText: "", hasTools: false, stream: false, prompt: { system: body.system, messages: body.messages } }),
  respond: (res, a) => writeJson(res, 200, { input_tokens: a.usage.inputTokens }),
  error: anthropicMessages.error,
};
