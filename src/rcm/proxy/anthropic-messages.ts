import type { Action } from "../history.js";
import { requestText, classifyEach, type EntryRole } from "./conversation.js";
import {
  blocks,
  blockTexts,
  contentWithRecord,
  isObject,
  resultText,
  listAt,
  offersTools,
  type Json,
  type WireFormat,
} from "./wire-format.js";

/**
 * Anthropic Messages (`POST …/v1/messages`): `messages` alternate user and assistant; `tool_use`
 * blocks are answered by `tool_result` blocks of the next user message; `system` is outside the list.
 */
export const anthropicWire: WireFormat = {
  name: "anthropic-messages",
  accepts: (method, path) => method === "POST" && /\/messages$/.test(path),
  list: listAt("messages"),
  hasTools: offersTools,
  roles: classifyEach((m, ledger): EntryRole => {
    const bs = blocks(m.content);
    if (m.role === "user") {
      const results = bs.filter((b) => b.type === "tool_result");
      for (const r of results)
        ledger.result(typeof r.tool_use_id === "string" ? r.tool_use_id : undefined, resultText(r.content), r.is_error === true);
      if (results.length > 0) return { kind: "exchange", actions: [] };
      const text = requestText(blockTexts(m.content, (b) => b.type === "text"));
      return text ? { kind: "request", text } : { kind: "context" };
    }
    const actions: Action[] = [];
    for (const b of bs) {
      if (b.type === "text" && typeof b.text === "string") actions.push({ kind: "assistant", text: b.text });
      if (b.type === "tool_use") actions.push(ledger.call(typeof b.id === "string" ? b.id : undefined, String(b.name ?? "tool"), b.input));
    }
    return { kind: "exchange", actions };
  }),
  note: (text) => ({ role: "assistant", content: [{ type: "text", text }] }),
  withRecord: (entry, record) => ({
    ...(entry as Json),
    content: contentWithRecord((entry as Json).content, record, (text) => ({ type: "text", text })),
  }),
  alternation: (list) => list.map((m) => (isObject(m) ? m.role : null)),
  pairs: (list) => {
    const calls: string[] = [];
    const results: string[] = [];
    for (const m of list.filter(isObject)) {
      for (const b of blocks(m.content)) {
        if (b.type === "tool_use" && typeof b.id === "string") calls.push(b.id);
        if (b.type === "tool_result" && typeof b.tool_use_id === "string") results.push(b.tool_use_id);
      }
    }
    return { calls, results };
  },
  withList: (body, list) => ({ ...body, messages: list }),
};
