import type { EntryRole } from "./conversation.js";

export type Json = Record<string, unknown>;

/**
 * One model API as the proxy reads and rewrites it: where the conversation is in a request body, what
 * each entry of it is (conversation.ts EntryRole), and how the elided note and the state record are
 * written in it. Everything else of the body (system prompt, tool definitions, settings) is copied as is.
 */
export interface WireFormat {
  readonly name: string;
  accepts(method: string, path: string): boolean;
  /** The conversation list, or why this body has none RCM can work on (forwarded unchanged). */
  list(body: Json): unknown[] | string;
  /** True when the request offers tools: an agent step. Other calls (titles, routers, compaction) pass unchanged. */
  hasTools(body: Json): boolean;
  roles(list: readonly unknown[]): EntryRole[];
  /** The entry that stands for an elided group's exchanges: one assistant text. */
  note(text: string): unknown;
  /** The current request with the record in front of its text (its other parts untouched). */
  withRecord(entry: unknown, record: string): unknown;
  /** Each entry's role, when the API wants roles to alternate (null: it does not). */
  alternation(list: readonly unknown[]): unknown[] | null;
  /** Tool call ids and tool result ids in the list. */
  pairs(list: readonly unknown[]): { calls: string[]; results: string[] };
  withList(body: Json, list: unknown[]): Json;
}

export const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

/** The blocks of a content that is a string or a list of parts. */
export function blocks(content: unknown): Json[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

/** Text of the blocks `accept` takes (text parts by default). */
export function blockTexts(content: unknown, accept: (b: Json) => boolean): string[] {
  return blocks(content).flatMap((b) => (accept(b) && typeof b.text === "string" ? [b.text] : []));
}

/** Text of a tool result's content: a string, or its text parts joined. */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  return blockTexts(content, () => true).join("\n");
}

/** A message content with the record in front: a string stays a string, a list gets a first text part. */
export function contentWithRecord(content: unknown, record: string, part: (text: string) => Json): unknown {
  if (typeof content === "string") return `${record}\n\n${content}`;
  return [part(record), ...(Array.isArray(content) ? content : [])];
}

/** The list under `key` of a body, or why there is none. */
export const listAt =
  (key: string) =>
  (body: Json): unknown[] | string =>
    Array.isArray(body[key]) ? body[key] : `no ${key} list`;

/** True when `tools` is a non-empty list (OpenAI chat and Responses, Anthropic). */
export const offersTools = (body: Json): boolean => Array.isArray(body.tools) && body.tools.length > 0;
