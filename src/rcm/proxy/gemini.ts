import type { Action } from "../history.js";
import { requestText, ToolLedger, type EntryRole } from "./conversation.js";
import { isObject, listAt, type Json, type WireFormat } from "./wire-format.js";

const partsOf = (c: unknown): Json[] => (isObject(c) && Array.isArray(c.parts) ? c.parts.filter(isObject) : []);
const texts = (parts: Json[]) => parts.flatMap((p) => (typeof p.text === "string" && p.thought !== true ? [p.text] : []));

/**
 * Calls and responses matched by id where Gemini gives one, else by name and order (`name#n`): a
 * response answers the oldest open call of its name.
 */
function callKeys(list: readonly unknown[]): { calls: string[]; results: string[] } {
  const calls: string[] = [];
  const results: string[] = [];
  const seen = { call: new Map<string, number>(), result: new Map<string, number>() };
  const key = (kind: "call" | "result", f: Json) => {
    if (typeof f.id === "string") return f.id;
    const name = String(f.name ?? "");
    const n = seen[kind].get(name) ?? 0;
    seen[kind].set(name, n + 1);
    return `${name}#${n}`;
  };
  for (const c of list) {
    for (const p of partsOf(c)) {
      if (isObject(p.functionCall)) calls.push(key("call", p.functionCall));
      if (isObject(p.functionResponse)) results.push(key("result", p.functionResponse));
    }
  }
  return { calls, results };
}

/**
 * Gemini generateContent (`POST …/models/M:generateContent` and `:streamGenerateContent`):
 * `contents` alternate `user` and `model`; `functionCall` parts are answered by `functionResponse`
 * parts of the next user content; `systemInstruction` is outside the list.
 */
export const geminiWire: WireFormat = {
  name: "gemini",
  accepts: (method, path) => method === "POST" && /\/models\/[^/:]+:(streamGenerateContent|generateContent)$/.test(path),
  list: listAt("contents"),
  hasTools: (body) =>
    Array.isArray(body.tools) &&
    body.tools.some((t) => isObject(t) && Array.isArray(t.functionDeclarations) && t.functionDeclarations.length > 0),
  roles: (list) => {
    const ledger = new ToolLedger();
    const keys = callKeys(list);
    let call = 0;
    let result = 0;
    return list.map((c): EntryRole => {
      const parts = partsOf(c);
      if (!isObject(c) || c.role === undefined || c.role === "user") {
        const responses = parts.filter((p) => isObject(p.functionResponse));
        for (const p of responses)
          ledger.result(keys.results[result++], JSON.stringify((p.functionResponse as Json).response ?? ""), false);
        if (responses.length > 0) return { kind: "exchange", actions: [] };
        const text = requestText(texts(parts));
        return text ? { kind: "request", text } : { kind: "context" };
      }
      const actions: Action[] = texts(parts).map((text) => ({ kind: "assistant", text }));
      for (const p of parts)
        if (isObject(p.functionCall))
          actions.push(ledger.call(keys.calls[call++], String(p.functionCall.name ?? "tool"), p.functionCall.args));
      return { kind: "exchange", actions };
    });
  },
  note: (text) => ({ role: "model", parts: [{ text }] }),
  withRecord: (entry, record) => {
    const e = entry as Json;
    return { ...e, parts: [{ text: record }, ...(Array.isArray(e.parts) ? e.parts : [])] };
  },
  alternation: (list) => list.map((c) => (isObject(c) ? (c.role ?? "user") : null)),
  pairs: callKeys,
  withList: (body, list) => ({ ...body, contents: list }),
};
