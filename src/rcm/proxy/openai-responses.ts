import { parsedArgs, requestText, classifyEach, type EntryRole } from "./conversation.js";
import { blockTexts, contentWithRecord, isObject, resultText, offersTools, type Json, type WireFormat } from "./wire-format.js";

const callTypes = new Set(["function_call", "custom_tool_call"]);
const outputTypes = new Set(["function_call_output", "custom_tool_call_output"]);
const textPart = (b: Json) => b.type === "input_text" || b.type === "output_text" || b.type === "text";

/**
 * OpenAI Responses (`POST …/responses`): `input` is a list of items (messages, function and custom
 * tool calls, their outputs paired by `call_id`, reasoning); `instructions` is outside the list. A
 * request that continues a stored response (`previous_response_id`) holds no history: it passes as is.
 */
export const openaiResponsesWire: WireFormat = {
  name: "openai-responses",
  accepts: (method, path) => method === "POST" && /\/responses$/.test(path),
  list: (body) => {
    if (typeof body.previous_response_id === "string") return "previous_response_id: the history is on the server";
    return Array.isArray(body.input) ? body.input : "input is not a list of items";
  },
  hasTools: offersTools,
  roles: classifyEach((item, ledger): EntryRole => {
    const type = item.type ?? "message";
    const callId = typeof item.call_id === "string" ? item.call_id : undefined;
    if (callTypes.has(String(type))) {
      const args = type === "custom_tool_call" ? item.input : parsedArgs(item.arguments);
      return { kind: "exchange", actions: [ledger.call(callId, String(item.name ?? "tool"), args)] };
    }
    if (outputTypes.has(String(type))) {
      ledger.result(callId, resultText(item.output), false);
      return { kind: "exchange", actions: [] };
    }
    if (type !== "message") return { kind: "exchange", actions: [] };
    if (item.role === "system" || item.role === "developer") return { kind: "pinned" };
    const texts = blockTexts(item.content, textPart);
    if (item.role === "user") {
      const text = requestText(texts);
      return text ? { kind: "request", text } : { kind: "context" };
    }
    return { kind: "exchange", actions: texts.map((text) => ({ kind: "assistant" as const, text })) };
  }),
  note: (text) => ({ type: "message", role: "assistant", content: [{ type: "output_text", text }] }),
  withRecord: (entry, record) => ({
    ...(entry as Json),
    content: contentWithRecord((entry as Json).content, record, (text) => ({ type: "input_text", text })),
  }),
  alternation: () => null,
  pairs: (list) => {
    const calls: string[] = [];
    const results: string[] = [];
    for (const item of list.filter(isObject)) {
      if (typeof item.call_id !== "string") continue;
      if (callTypes.has(String(item.type))) calls.push(item.call_id);
      if (outputTypes.has(String(item.type))) results.push(item.call_id);
    }
    return { calls, results };
  },
  withList: (body, list) => ({ ...body, input: list }),
};
