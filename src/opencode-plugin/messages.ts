import type { Message, Part } from "@opencode-ai/sdk";
import { elidedNote, type AssemblyPlan } from "../rcm/assembly.js";
import type { Action, Group } from "../rcm/history.js";

/** One entry of `output.messages` in `experimental.chat.messages.transform`. */
export interface HostMessage {
  info: Message;
  parts: Part[];
}

/** Parts RCM adds carry this metadata key, so that they are never read back as history. */
export const rcmPartKey = "switchSweRcm";

/** Where each group lives in the host's message list. */
export interface GroupSpan {
  /** Index of the user message that starts the group. */
  user: number;
  /** Indexes of the assistant (and synthetic user) messages that answered it. */
  rest: number[];
}

export interface HistoryView {
  groups: Group[];
  spans: GroupSpan[];
}

function isRcmPart(p: Part): boolean {
  return "metadata" in p && p.metadata !== undefined && p.metadata !== null && rcmPartKey in p.metadata;
}

/** Paths named by an OpenCode tool input (read/write/edit/glob/grep/list and apply_patch). */
export function toolInputPaths(input: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of ["filePath", "path"]) if (typeof input[k] === "string") out.push(input[k]);
  if (typeof input.patchText === "string") {
    for (const m of input.patchText.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)) out.push(m[1]!.trim());
  }
  return out;
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
      const texts = m.parts.filter((p): p is Extract<Part, { type: "text" }> => p.type === "text" && !p.ignored && !p.synthetic && !isRcmPart(p));
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
 * Applies a plan to `output.messages` in place (the only kind of change the hook honours): dropped
 * groups are spliced out, elided groups keep their user message and one assistant note, and the state
 * record becomes a synthetic text part in front of the current request. Everything is computed
 * before the first change, so a failure leaves the list untouched.
 */
export function applyPlan(messages: HostMessage[], view: HistoryView, plan: AssemblyPlan): { dropped: number; elided: number } {
  if (!plan.filtered) return { dropped: 0, elided: 0 };
  const remove = new Set<number>();
  const elide: number[] = [];
  plan.treatments.forEach((t, gi) => {
    const span = view.spans[gi];
    if (!span) return;
    if (t === "dropped") {
      remove.add(span.user);
      for (const i of span.rest) remove.add(i);
    } else if (t === "elided") {
      const assistants = span.rest.filter((i) => messages[i]!.info.role === "assistant");
      if (assistants.length === 0) return;
      elide.push(assistants[0]!);
      for (const i of assistants.slice(1)) remove.add(i);
    }
  });
  const currentSpan = view.spans[view.spans.length - 1];
  const current = currentSpan ? messages[currentSpan.user] : undefined;
  const recordPart: Part | null =
    plan.record && current
      ? { id: `prt_rcm_${current.info.id}`, sessionID: current.info.sessionID, messageID: current.info.id, type: "text", text: plan.record, synthetic: true, metadata: { [rcmPartKey]: "record" } }
      : null;
  const notes = elide.map((i): [number, Part] => {
    const m = messages[i]!;
    return [i, { id: `prt_rcm_${m.info.id}`, sessionID: m.info.sessionID, messageID: m.info.id, type: "text", text: elidedNote, synthetic: true, metadata: { [rcmPartKey]: "elided" } }];
  });
  // Mutations only from here on.
  for (const [i, note] of notes) messages[i]!.parts.splice(0, messages[i]!.parts.length, note);
  if (recordPart && current) current.parts.unshift(recordPart);
  const order = [...remove].sort((a, b) => b - a);
  for (const i of order) messages.splice(i, 1);
  return { dropped: order.length, elided: notes.length };
}
