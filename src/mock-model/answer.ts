import type { ServerResponse } from "node:http";
import type { ScriptToolCall } from "./script.js";

/**
 * What the server answers to one request, before it is put into a wire format. Usage is kept in one
 * neutral shape; each protocol writes it into its own fields: `inputTokens` is the whole prompt
 * (cached part included), `outputTokens` the whole output (reasoning included).
 */
export interface Answer {
  model: string;
  text: string;
  toolCalls: ScriptToolCall[];
  usage: { inputTokens: number; outputTokens: number; cachedTokens: number; cacheWriteTokens: number; reasoningTokens: number };
}

/** What the script needs to know about a request, read from its body by its protocol. */
export interface RequestFacts {
  /** Text of the last user message that holds text (tool results are not user text). */
  lastUserText: string;
  /** True when the request offers tools (an agent step), false for auxiliary calls (titles, checks). */
  hasTools: boolean;
  model?: string;
  stream: boolean;
  /** The part of the body that makes the prompt (its size gives the default input token count). */
  prompt: unknown;
  /** Tools the request declares with free-form input (Responses `custom` tools such as apply_patch). */
  customTools?: ReadonlySet<string>;
}

/**
 * One wire protocol of the scripted model: which requests it serves, what it reads from them, and
 * how it writes an answer (streamed or not) and an error.
 */
export interface Protocol {
  readonly name: string;
  /** `generate` answers from the script (and reports usage); `count` only counts tokens (no turn is used). */
  readonly kind: "generate" | "count";
  accepts(method: string, path: string): boolean;
  view(body: Record<string, unknown>, path: string): RequestFacts;
  respond(res: ServerResponse, answer: Answer, id: string, view: RequestFacts): void;
  error(res: ServerResponse, status: number, message: string): void;
}

/** A rough token count (4 characters a token): the mock has no tokenizer of any real model. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function writeJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

/** Starts a server-sent-event stream; `send(event, data)` writes one event (`event:` line only when named). */
export function sseStream(res: ServerResponse): { send: (event: string | null, data: unknown) => void; end: (tail?: string) => void } {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  return {
    send: (event, data) => res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`),
    end: (tail) => res.end(tail ?? ""),
  };
}

/** Concatenated `text` of a list of content parts (objects with a string `text`), or the string itself. */
export function partsText(content: unknown, accept: (part: Record<string, unknown>) => boolean = () => true): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p: unknown) =>
      p && typeof p === "object" && accept(p as Record<string, unknown>) && typeof (p as { text?: unknown }).text === "string"
        ? (p as { text: string }).text
        : "",
    )
    .join("");
}
