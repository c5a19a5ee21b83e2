import { partsText, sseStream, writeJson, type Answer, type Protocol } from "./answer.js";

type Item = Record<string, unknown>;

/** Text of the last user message item (`input_text` parts); function outputs are not user text. */
function lastUserText(input: unknown): string {
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return "";
  for (const item of [...(input as Item[])].reverse()) {
    if (item.role !== "user" || (item.type !== undefined && item.type !== "message")) continue;
    const text = partsText(item.content);
    if (text !== "") return text;
  }
  return "";
}

/** Names of the tools the request declares as `custom` (free-form input, e.g. Codex's apply_patch). */
function customTools(tools: unknown): Set<string> {
  if (!Array.isArray(tools)) return new Set();
  return new Set((tools as Item[]).flatMap((t) => (t.type === "custom" && typeof t.name === "string" ? [t.name] : [])));
}

function usage(a: Answer) {
  const u = a.usage;
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

/**
 * Output items: a message with the text, then one call per scripted tool call. A call to a tool the
 * request declared `custom` becomes a `custom_tool_call` whose input is the `input` argument.
 */
function outputItems(a: Answer, id: string, custom: ReadonlySet<string>): Item[] {
  const items: Item[] = [];
  if (a.text !== "") {
    items.push({
      type: "message",
      id: `msg_${id}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: a.text, annotations: [] }],
    });
  }
  a.toolCalls.forEach((c, i) => {
    const callId = `call_${id}_${i}`;
    if (custom.has(c.name)) {
      const input = typeof c.arguments.input === "string" ? c.arguments.input : JSON.stringify(c.arguments);
      items.push({ type: "custom_tool_call", id: `ctc_${id}_${i}`, status: "completed", call_id: callId, name: c.name, input });
    } else {
      items.push({
        type: "function_call",
        id: `fc_${id}_${i}`,
        status: "completed",
        call_id: callId,
        name: c.name,
        arguments: JSON.stringify(c.arguments),
      });
    }
  });
  return items;
}

function responseBody(a: Answer, id: string, output: Item[], status: string): Item {
  return {
    id: `resp_${id}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: a.model,
    output,
    ...(status === "completed" ? { usage: usage(a) } : {}),
  };
}

/**
 * OpenAI Responses: `POST /v1/responses`, streamed as typed events (response.created,
 * response.output_item.added/done, response.output_text.delta, response.completed with usage) or
 * answered as one response object.
 */
export const openaiResponses: Protocol = {
  name: "openai-responses",
  kind: "generate",
  accepts: (method, path) => method === "POST" && /\/responses$/.test(path),
  view: (body) => {
    return {
      lastUserText: lastUserText(body.input),
      hasTools: Array.isArray(body.tools) && body.tools.length > 0,
      ...(typeof body.model === "string" ? { model: body.model } : {}),
      stream: body.stream === true,
      prompt: { instructions: body.instructions, input: body.input },
      customTools: customTools(body.tools),
    };
  },
  respond: (res, a, id, { stream, customTools: custom }) => {
    const output = outputItems(a, id, new Set(custom));
    if (!stream) return writeJson(res, 200, responseBody(a, id, output, "completed"));
    const s = sseStream(res);
    let seq = 0;
    const send = (type: string, data: Item) => s.send(type, { type, sequence_number: seq++, ...data });
    send("response.created", { response: responseBody(a, id, [], "in_progress") });
    output.forEach((item, index) => {
      send("response.output_item.added", {
        output_index: index,
        item: item.type === "message" ? { ...item, status: "in_progress", content: [] } : item,
      });
      if (item.type === "message") {
        const text = (item.content as { text: string }[])[0]!.text;
        send("response.output_text.delta", { item_id: item.id, output_index: index, content_index: 0, delta: text });
        send("response.output_text.done", { item_id: item.id, output_index: index, content_index: 0, text });
      }
      send("response.output_item.done", { output_index: index, item });
    });
    send("response.completed", { response: responseBody(a, id, output, "completed") });
    s.end();
  },
  error: (res, status, message) =>
    writeJson(res, status, { error: { message, type: status === 429 ? "rate_limit_exceeded" : "server_error", code: null, param: null } }),
};
