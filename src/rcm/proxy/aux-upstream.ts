import type { OutgoingHttpHeaders } from "node:http";
import { chatCompletionReply, type AuxChat, type AuxReply, type AuxUsage } from "../aux-model.js";
import { isObject, type Json } from "./wire-format.js";

/** Where the agent's latest model request went: the auxiliary call goes the same way (format, URL, headers and model). */
export interface UpstreamVia {
  /** The wire format's name (openai-chat, openai-responses, anthropic-messages, gemini). */
  protocol: string;
  /** The upstream URL the agent's request was forwarded to. */
  target: URL;
  /** The headers forwarded with it (the agent's key, or the proxy's own with --api-key-env). */
  headers: OutgoingHttpHeaders;
  /** The model the agent asked for (Gemini: from the path). */
  model: string;
}

const n = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);
const texts = (parts: unknown, accept: (p: Json) => boolean): string =>
  (Array.isArray(parts) ? parts : [])
    .filter(isObject)
    .flatMap((p) => (accept(p) && typeof p.text === "string" ? [p.text] : []))
    .join("");

interface AuxProtocol {
  /** The request body of one tool-free, unstreamed call, and its URL (derived from the agent's). */
  request(via: UpstreamVia, system: string, user: string): { url: URL; body: Json };
  /** The answer's text and its tokens in RCM's rule (input excludes cached input). */
  reply(body: Json): { text: string | null; input: number; cached: number; output: number; reasoning: number } | null;
}

const protocols: Record<string, AuxProtocol> = {
  "openai-chat": {
    request: (via, system, user) => ({
      url: via.target,
      body: {
        model: via.model,
        messages: [
          { role: "system", content: system },
          { role: "user", content: user },
        ],
        stream: false,
      },
    }),
    reply: chatCompletionReply,
  },
  "openai-responses": {
    request: (via, system, user) => ({
      url: via.target,
      body: { model: via.model, instructions: system, input: user, stream: false, store: false },
    }),
    reply: (b) => {
      const u = isObject(b.usage) ? b.usage : null;
      const cached = n(isObject(u?.input_tokens_details) ? u.input_tokens_details.cached_tokens : 0);
      const out = (Array.isArray(b.output) ? b.output : []).filter(isObject).filter((i) => i.type === "message");
      const text = out.map((i) => texts(i.content, (p) => p.type === "output_text")).join("");
      const reasoning = n(isObject(u?.output_tokens_details) ? u.output_tokens_details.reasoning_tokens : 0);
      return u
        ? { text: text === "" ? null : text, input: Math.max(0, n(u.input_tokens) - cached), cached, output: n(u.output_tokens), reasoning }
        : null;
    },
  },
  "anthropic-messages": {
    request: (via, system, user) => ({
      url: via.target,
      body: { model: via.model, system, messages: [{ role: "user", content: user }], max_tokens: 1024, stream: false },
    }),
    reply: (b) => {
      const u = isObject(b.usage) ? b.usage : null;
      const text = texts(b.content, (p) => p.type === "text");
      return u
        ? {
            text: text === "" ? null : text,
            input: n(u.input_tokens),
            cached: n(u.cache_read_input_tokens),
            output: n(u.output_tokens),
            reasoning: 0,
          }
        : null;
    },
  },
  gemini: {
    request: (via, system, user) => {
      // A streamed agent request (`:streamGenerateContent?alt=sse`) becomes one plain `:generateContent` call.
      const url = new URL(via.target);
      url.pathname = url.pathname.replace(/:streamGenerateContent$/, ":generateContent");
      url.searchParams.delete("alt");
      return { url, body: { systemInstruction: { parts: [{ text: system }] }, contents: [{ role: "user", parts: [{ text: user }] }] } };
    },
    reply: (b) => {
      const u = isObject(b.usageMetadata) ? b.usageMetadata : null;
      const c = Array.isArray(b.candidates) && isObject(b.candidates[0]) ? b.candidates[0] : {};
      const text = texts(isObject(c.content) ? c.content.parts : [], (p) => p.thought !== true);
      const cached = n(u?.cachedContentTokenCount);
      return u
        ? {
            text: text === "" ? null : text,
            input: Math.max(0, n(u.promptTokenCount) - cached),
            cached,
            output: n(u.candidatesTokenCount) + n(u.thoughtsTokenCount),
            reasoning: n(u.thoughtsTokenCount),
          }
        : null;
    },
  },
};

/** The model of an agent request: the body's `model`, or Gemini's `models/M:…` path. */
export function requestModel(body: Json, path: string): string | null {
  if (typeof body.model === "string" && body.model !== "") return body.model;
  const m = /\/models\/([^/:]+):/.exec(path);
  return m ? decodeURIComponent(m[1]!) : null;
}

/**
 * The auxiliary model as the agent's own upstream (the proxy's default): each call is one tool-free,
 * unstreamed request of the agent's wire format to the URL, with the headers and the model of the
 * conversation's latest request (`via()`: null before the first, then the call fails and RCM routes
 * deterministically). No key of RCM's own; nothing of the headers is logged.
 */
export function upstreamAuxChat(via: () => UpstreamVia | null, timeoutMs: number): AuxChat {
  return async (purpose, system, user): Promise<AuxReply> => {
    const v = via();
    const protocol = v ? protocols[v.protocol] : undefined;
    if (!v || !protocol) throw new Error("auxiliary model: no upstream request seen yet");
    const { url, body } = protocol.request(v, system, user);
    const headers: Record<string, string> = {};
    for (const [k, value] of Object.entries(v.headers)) {
      if (value === undefined || k === "content-length" || k === "accept-encoding") continue;
      headers[k] = Array.isArray(value) ? value.join(", ") : String(value);
    }
    headers["content-type"] = "application/json";
    const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`auxiliary model: HTTP ${res.status}`);
    const answer: unknown = await res.json();
    const r = isObject(answer) ? protocol.reply(answer) : null;
    const usage: AuxUsage | null = r
      ? {
          purpose,
          model: v.model,
          input_tokens: r.input,
          output_tokens: r.output,
          cached_input_tokens: r.cached,
          reasoning_tokens: r.reasoning,
        }
      : null;
    return { text: r?.text ?? null, usage };
  };
}
