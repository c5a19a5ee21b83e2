import type { Message, Part } from "@opencode-ai/sdk";
import { elidedNote, type AssemblyPlan } from "../rcm/assembly.js";
import type { Action, Group } from "../rcm/history.js";
import { applyEdits, planEdits, type GroupSpan, type HistoryEdits, type HistoryView } from "../rcm/history-edits.js";
import { toolInputPaths } from "../rcm/tool-paths.js";

/** One entry of `output.messages` in `experimental.chat.messages.transform`. */
export interface HostMessage {
  info: Message;
  parts: Part[];
}

/**
 * Parts RCM adds carry this metadata key, so that they are never read back as history. Its value is an
 * object: OpenCode passes a text part's metadata to the AI SDK as `providerMetadata`, whose schema is a
 * record of records (a string value made every prompt with an elided note invalid: "The messages do not
 * match the ModelMessage[] schema").
 */
export const rcmPartKey = "switchSweRcm";

function isRcmPart(p: Part): boolean {
  return "metadata" in p && p.metadata !== undefined && p.metadata !== null && rcmPartKey in p.metadata;
}

/**
 * Groups OpenCode messages: a user message with non-synthetic text starts a group; assistant messages
 * and synthetic user messages (such as an automatic "continue") belong to the group before them.
 * Messages before the first request (a compaction summary) belong to no group and stay untouched.
 */
export function historyView(messages: readonly HostMessage[]): HistoryView {
  const groups: Group[] = [];
  const spans: GroupSpan[] = [];
  messages.forEach((m, i) => {
    if (m.info.role === "user") {
      const texts = m.parts.filter(
        (p): p is Extract<Part, { type: "text" }> => p.type === "text" && !p.ignored && !p.synthetic && !isRcmPart(p),
      );
      if (texts.length > 0) {
        groups.push({ id: m.info.id, userMessageId: m.info.id, userText: texts.map((p) => p.text).join("\n"), actions: [] });
        spans.push({ user: i, rest: [] });
        return;
      }
    }
    const group = groups[groups.length - 1];
    if (!group) return;
    spans[spans.length - 1]!.rest.push(i);
    if (m.info.role !== "assistant") return;
    for (const p of m.parts) {
      if (isRcmPart(p)) continue;
      if (p.type === "text" && p.text.trim() !== "") group.actions.push({ kind: "assistant", text: p.text, messageId: m.info.id });
      if (p.type === "tool") group.actions.push(toolAction(p, m.info.id));
    }
  });
  return { groups, spans };
}

function toolAction(p: Extract<Part, { type: "tool" }>, messageId: string): Action {
  const st = p.state;
  const text = st.status === "completed" ? st.output : st.status === "error" ? st.error : "";
  const paths = toolInputPaths(st.input);
  return {
    kind: "tool",
    tool: p.tool,
    args: st.input,
    text,
    ...(paths.length ? { paths } : {}),
    ...(st.status === "completed" ? { status: "ok" as const } : st.status === "error" ? { status: "error" as const } : {}),
    messageId,
  };
}

/**
 * Applies a plan to `output.messages` in place (the only kind of change the hook honours), through the
 * core's one translation of a plan into edits (history-edits.ts): dropped groups are spliced out, an
 * elided group keeps its user message and one assistant note (synthetic user messages stay), and the
 * state record becomes a synthetic text part in front of the current request. Every new part is built
 * before the first change.
 */
export function applyPlan(messages: HostMessage[], view: HistoryView, plan: AssemblyPlan): HistoryEdits {
  const edits = planEdits(view, plan, (i) => messages[i]!.info.role === "assistant");
  const part = (m: HostMessage, kind: "record" | "elided", text: string): Part => ({
    id: `prt_rcm_${m.info.id}`,
    sessionID: m.info.sessionID,
    messageID: m.info.id,
    type: "text",
    text,
    synthetic: true,
    metadata: { [rcmPartKey]: { part: kind } },
  });
  const notes = new Map(edits.notes.map((i) => [i, part(messages[i]!, "elided", elidedNote)]));
  const record = edits.record ? part(messages[edits.record.at]!, "record", edits.record.text) : null;
  // Mutations only from here on. OpenCode keeps the list and its message objects: both are edited in place.
  const next = applyEdits(
    messages,
    edits,
    (m, i) => (m.parts.splice(0, m.parts.length, notes.get(i)!), m),
    (m) => (record && m.parts.unshift(record), m),
  );
  messages.splice(0, messages.length, ...next);
  return edits;
}
