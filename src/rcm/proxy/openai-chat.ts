import type { Action } from "../history.js";
import { parsedArgs, requestText, classifyEach, type EntryRole } from "./conversation.js";
import { blockTexts, contentWithRecord, isObject, resultText, listAt, offersTools, type Json, type WireFormat } from "./wire-format.js";

/** OpenAI chat completions (`POST …/chat/completions`): `messages`, tool calls paired with `tool` messages by id. */
export const openaiChatWire: WireFormat = {
  name: "openai-chat",
  accepts: (method, path) => method === "POST" && /\/chat\/completions$/.test(path),
  list: listAt("messages"),
  hasTools: offersTools,
  roles: classifyEach((m, ledger): EntryRole => {
    if (m.role === "system" || m.role === "developer") return { kind: "pinned" };
    if (m.role === "user") {
      const text = requestText(blockTexts(m.content, (b) => b.type === "text"));
      return text ? { kind: "request", text } : { kind: "context" };
    }
    if (m.role === "tool") {
      ledger.result(typeof m.tool_call_id === "string" ? m.tool_call_id : undefined, resultText(m.content), false);
      return { kind: "exchange", actions: [] };
    }
    if (m.role !== "assistant") return { kind: "exchange", actions: [] };
    const actions: Action[] = blockTexts(m.content, (b) => b.type === "text").map((text) => ({ kind: "assistant", text }));
    for (const c of Array.isArray(m.tool_calls) ? m.tool_calls.filter(isObject) : []) {
      const f = isObject(c.function) ? c.function : {};
      actions.push(ledger.call(typeof c.id === "string" ? c.id : undefined, String(f.name ?? "tool"), parsedArgs(f.arguments)));
    }
    return { kind: "exchange", actions };
  }),
  note: (text) => ({ role: "assistant", content: text }),
  withRecord: (entry, record) => ({
    ...(entry as Json),
    content: contentWithRecord((entry as Json).content, record, (text) => ({ type: "text", text })),
  }),
  alternation: () => null,
  pairs: (list) => {
    const calls: string[] = [];
    const results: string[] = [];
    for (const m of list.filter(isObject)) {
      if (m.role === "assistant" && Array.isArray(m.tool_calls))
        for (const c of m.tool_calls.filter(isObject)) if (typeof c.id === "string") calls.push(c.id);
      if (m.role === "tool" && typeof m.tool_call_id === "string") results.push(m.tool_call_id);
    }
    return { calls, results };
  },
  withList: (body, list) => ({ ...body, messages: list }),
};
