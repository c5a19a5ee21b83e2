import { createHash } from "node:crypto";
import type { Action, Group } from "../history.js";
import type { GroupSpan, HistoryView } from "../history-edits.js";
import { toolInputPaths } from "../tool-paths.js";

/**
 * How one entry of a request's conversation (a message, an item, a content) counts for RCM:
 * `pinned` entries (system and developer prompts) are never moved or removed; a `request` starts a
 * group; an `exchange` is the assistant's work or a tool result answering it (removed together when a
 * group is elided); `context` is the host's own text in the user role (an environment block), which
 * stays with its group.
 */
export type EntryRole =
  { kind: "pinned" } | { kind: "request"; text: string } | { kind: "exchange"; actions: Action[] } | { kind: "context" };

/**
 * A text block wholly wrapped in one tag (`<system-reminder>…</system-reminder>`,
 * `<environment_context>…`, `<session_context>…`): the host's context, not the user's request.
 */
export function isHostContext(text: string): boolean {
  const m = /^\s*<([A-Za-z_][\w-]*)[^>]*>/.exec(text);
  return m !== null && new RegExp(`</${m[1]}>\\s*$`).test(text);
}

/** The user's request in a list of text blocks: the blocks that are not host context, joined. */
export function requestText(texts: readonly string[]): string {
  return texts
    .filter((t) => t.trim() !== "" && !isHostContext(t))
    .join("\n")
    .trim();
}

/** Tool calls by id, so that a later result fills in its call's output and status. */
export class ToolLedger {
  private readonly byId = new Map<string, Action>();

  call(id: string | undefined, name: string, args: unknown): Action {
    const paths = toolInputPaths(args);
    const a: Action = { kind: "tool", tool: name, args, text: "", ...(paths.length ? { paths } : {}) };
    if (id !== undefined) this.byId.set(id, a);
    return a;
  }

  result(id: string | undefined, text: string, error: boolean): void {
    const a = id === undefined ? undefined : this.byId.get(id);
    if (!a) return;
    a.text = text;
    a.status = error ? "error" : "ok";
  }
}

/** Roles of a list whose entries are objects, classified in order with one ledger (an entry that is no object is left alone as context). */
export function classifyEach(
  classify: (entry: Record<string, unknown>, ledger: ToolLedger) => EntryRole,
): (list: readonly unknown[]) => EntryRole[] {
  return (list) => {
    const ledger = new ToolLedger();
    return list.map((e) =>
      e !== null && typeof e === "object" && !Array.isArray(e) ? classify(e as Record<string, unknown>, ledger) : { kind: "context" },
    );
  };
}

/** Arguments sent as a JSON string (OpenAI), parsed; anything else kept as it is. */
export function parsedArgs(args: unknown): unknown {
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/**
 * Groups from classified entries. A group's id is the hash of its request text (with a count for a
 * text that repeats): the same request keeps its id on every later request of the conversation, even
 * after the host compacted the history before it, so its routing is reused.
 */
export function conversationView(roles: readonly EntryRole[]): HistoryView {
  const groups: Group[] = [];
  const spans: GroupSpan[] = [];
  const seen = new Map<string, number>();
  roles.forEach((r, i) => {
    if (r.kind === "pinned") return;
    if (r.kind === "request") {
      const hash = createHash("sha256").update(r.text).digest("hex").slice(0, 16);
      const n = seen.get(hash) ?? 0;
      seen.set(hash, n + 1);
      const id = n === 0 ? `g_${hash}` : `g_${hash}_${n}`;
      groups.push({ id, userMessageId: id, userText: r.text, actions: [] });
      spans.push({ user: i, rest: [] });
      return;
    }
    const span = spans[spans.length - 1];
    if (!span) return;
    span.rest.push(i);
    if (r.kind === "exchange") groups[groups.length - 1]!.actions.push(...r.actions);
  });
  return { groups, spans };
}

/** Adjacent entries with the same role: assembly must not create a pair the host did not send (Anthropic and Gemini alternate). */
export function sameRolePairs(roles: readonly unknown[]): number {
  let n = 0;
  for (let i = 1; i < roles.length; i++) if (roles[i] === roles[i - 1]) n++;
  return n;
}

/** Ids of tool calls without their result, or results without their call. */
export function unpaired(calls: readonly string[], results: readonly string[]): Set<string> {
  const c = new Set(calls);
  const r = new Set(results);
  return new Set([...calls.filter((id) => !r.has(id)), ...results.filter((id) => !c.has(id))]);
}
