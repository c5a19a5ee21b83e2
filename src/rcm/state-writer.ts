import { stateReplySchema, type StateReply } from "../formats/rcm-state-reply.js";
import type { StateWrite } from "../formats/rcm-state-write.js";
import type { AuxChat, AuxUsage } from "./aux-model.js";
import { actionText, type Group } from "./history.js";
import type { Assignment } from "./router.js";
import { checkRefs, type CitedMessage } from "./state-check.js";
import { renderTaskState, type ItemKind, type StateItem, type TaskState } from "./state-record.js";
import { actionSource, addFile, clip, pushBounded, requestBody, stateLimits } from "./state-updater.js";

/**
 * Model-written state (docs/rcm.md, "Model-written state"): the auxiliary model reads a bounded batch
 * of one task's completed groups, each message labelled with its id, and answers what they add to the
 * task's record; every goal, constraint and progress item cites messages, and is used only when the
 * references check out (state-check.ts). An answer that is not usable leaves the batch as the
 * deterministic updater folded it (the extractive record), and says why.
 */

/** Per batch: at most this many characters of messages go to the model (about 3,000 tokens at four characters a token). */
export const stateBatchChars = 12_000;
/** Each request and each exchange is clipped to this many characters in the call. */
const requestChars = 3_000;
const exchangeChars = 600;

function groupLines(g: Group): string[] {
  return [
    `[${g.userMessageId}] user: ${clip(requestBody(g.userText), requestChars)}`,
    ...g.actions.map(
      (a, k) =>
        `[${actionSource(g, a, k)}] ${a.kind === "tool" ? `tool ${a.tool ?? ""}`.trim() : "assistant"}: ${clip(actionText(a), exchangeChars)}`,
    ),
  ];
}

const groupChars = (g: Group) => groupLines(g).reduce((n, l) => n + l.length + 1, 0);

/**
 * The task's groups cut into batches of at most `maxGroups` groups and `maxChars` characters of
 * messages, in order; a group longer than `maxChars` is a batch of its own (its lines are clipped).
 */
export function stateBatches(groups: readonly Group[], maxGroups: number, maxChars: number = stateBatchChars): Group[][] {
  const out: Group[][] = [];
  let cur: Group[] = [];
  let chars = 0;
  for (const g of groups) {
    const n = groupChars(g);
    if (cur.length > 0 && (cur.length >= maxGroups || chars + n > maxChars)) {
      out.push(cur);
      cur = [];
      chars = 0;
    }
    cur.push(g);
    chars += n;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** Every message of the conversation by id: its group's tasks, its role and text (what references are checked against). */
export function citableMessages(
  groups: readonly Group[],
  assignments: Readonly<Record<string, Assignment>>,
): Map<string, CitedMessage & { group: string }> {
  const out = new Map<string, CitedMessage & { group: string }>();
  for (const g of groups) {
    const a = assignments[g.id];
    const tasks = a?.task ? [a.task, ...(a.also ?? [])] : [];
    out.set(g.userMessageId, { tasks, role: "user", text: g.userText, group: g.id });
    g.actions.forEach((x, k) => {
      const id = actionSource(g, x, k);
      const prev = out.get(id);
      // One host message may hold several actions (OpenCode: a message's parts): its text is all of them.
      const text = prev ? `${prev.text}\n${actionText(x)}` : actionText(x);
      // A message holding a tool result is one (OpenCode's assistant messages hold their tool parts).
      const role = x.kind === "tool" || prev?.role === "tool" ? "tool" : "assistant";
      out.set(id, { tasks, role, text, group: g.id });
    });
  }
  return out;
}

export const stateSystem = [
  "You keep the state memory of one task of a coding agent's conversation.",
  "You get the task's current record and its new messages, each after its id in brackets.",
  'Answer only JSON: {"goal": {"text": "...", "refs": ["<id>"]} or null, "constraints": [{"text": "...", "refs": ["<id>"]}], "progress": [{"text": "...", "refs": ["<id>"]}], "pending": [{"text": "..."}], "files": ["<path>"], "uncertainties": [{"text": "..."}]}.',
  "Give only what the new messages add; pending lists everything still open after them.",
  "Every goal, constraint and progress item cites the ids of the messages that say it, copied exactly, and uses their words: items whose messages do not say them are discarded.",
].join(" ");

/** The user part of a state-writing call: the record so far and the batch's messages. */
export function stateRequest(s: TaskState, batch: readonly Group[]): string {
  const record = renderTaskState(s);
  return [
    `Task ${s.task}. Current record:`,
    record ? clip(record, requestChars) : "(empty)",
    "",
    "New messages:",
    ...batch.flatMap(groupLines),
  ].join("\n");
}

/** The JSON of a model's answer, parsed against the reply schema; a string saying what is wrong otherwise. */
export function parseStateReply(text: string | null): StateReply | string {
  if (text === null) return "no answer text";
  const m = /\{[\s\S]*\}/.exec(text);
  let json: unknown;
  try {
    json = m ? JSON.parse(m[0]) : undefined;
  } catch {
    json = undefined;
  }
  if (json === undefined) return "answer is not JSON";
  const r = stateReplySchema.safeParse(json);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  return `answer ${i.path.join(".") || "(root)"}: ${i.message}`;
}

const sections = ["constraints", "completed", "pending", "uncertainties"] as const;

/** What cited messages make an item: the user's words a requirement, a tool's output an observation, else a claim. */
function kindOfRefs(refs: readonly string[], messages: ReadonlyMap<string, CitedMessage>): ItemKind {
  const roles = refs.map((r) => messages.get(r)?.role);
  if (roles.length > 0 && roles.every((r) => r === "user")) return "requirement";
  return roles.includes("tool") ? "observation" : "claim";
}

/**
 * Folds a checked reply into the record: the batch's extractive goal, constraints, completed work,
 * pending work and uncertainties give way to the model's items whose references hold; files the model
 * names are added when a message of the task names them. Returns what was used and dropped.
 */
export function applyStateReply(
  s: TaskState,
  reply: StateReply,
  batch: readonly Group[],
  messages: ReadonlyMap<string, CitedMessage & { group: string }>,
): StateWrite {
  const batchIds = new Set(batch.flatMap((g) => [g.userMessageId, ...g.actions.map((a, k) => actionSource(g, a, k))]));
  const lastRequest = batch[batch.length - 1]!;
  const requestOf = (id: string) => {
    const group = messages.get(id)?.group ?? lastRequest.id;
    return s.covered.indexOf(group) + 1 || s.requests;
  };
  const dropped: NonNullable<StateWrite["dropped"]> = [];
  let kept = 0;
  /** The item when its references hold (optional ones only when given), else null and counted as dropped. */
  const checked = (section: string, it: { text: string; refs?: string[] | undefined }, required: boolean): StateItem | null => {
    const refs = [...new Set(it.refs ?? [])];
    if (refs.length > 0 || required) {
      const why = checkRefs(it.text, refs, s.task, messages);
      if (why) {
        dropped.push({ section, text: clip(it.text), why });
        return null;
      }
    }
    kept++;
    const source = refs[0] ?? lastRequest.userMessageId;
    return {
      text: clip(it.text),
      kind: refs.length > 0 ? kindOfRefs(refs, messages) : "claim",
      source,
      request: requestOf(source),
      ...(refs.length > 0 ? { refs } : {}),
    };
  };
  // In each section, the batch's extractive items give way to the model's items that checked out (the
  // model saw the same messages); with none, they stay. Earlier batches' items stay.
  const fromBatch = (i: StateItem) => i.refs === undefined && batchIds.has(i.source);
  const write = (
    section: (typeof sections)[number],
    name: string,
    items: ReadonlyArray<{ text: string; refs?: string[] | undefined }>,
    required: boolean,
  ) => {
    const good = items.map((it) => checked(name, it, required)).filter((i): i is StateItem => i !== null);
    if (good.length === 0) return;
    s[section] = s[section].filter((i) => !fromBatch(i));
    for (const item of good) pushBounded(s[section], item, stateLimits[section]);
  };
  if (reply.goal) {
    const goal = checked("goal", reply.goal, true);
    if (goal && (s.goal === null || fromBatch(s.goal))) s.goal = goal;
  }
  write("constraints", "constraints", reply.constraints, true);
  write("completed", "progress", reply.progress, true);
  write("uncertainties", "uncertainties", reply.uncertainties, false);
  if (reply.pending !== undefined) {
    // What is open after the batch replaces what was open before it (an empty list: nothing is open).
    const good = reply.pending.map((it) => checked("pending", it, false)).filter((i): i is StateItem => i !== null);
    if (good.length === reply.pending.length) {
      s.pending = [];
      for (const item of good) pushBounded(s.pending, item, stateLimits.pending);
    }
  }
  for (const path of reply.files) {
    const at = [...messages.entries()].find(([, m]) => m.tasks.includes(s.task) && m.text.includes(path));
    if (!at) {
      dropped.push({ section: "files", text: clip(path), why: "no message of the task names it" });
      continue;
    }
    kept++;
    addFile(s, path, "named", {
      text: path,
      kind: at[1].role === "user" ? "requirement" : at[1].role === "tool" ? "observation" : "claim",
      source: at[0],
      request: requestOf(at[0]),
      refs: [at[0]],
    });
  }
  return { task: s.task, groups: batch.map((g) => g.id), by: "model", kept, dropped };
}

/** One state-writing call for a batch; the reply's items, checked, go into the record. Null reply: the caller records the fallback. */
export async function writeStateBatch(
  chat: AuxChat,
  s: TaskState,
  batch: readonly Group[],
  messages: ReadonlyMap<string, CitedMessage & { group: string }>,
): Promise<{ write: StateWrite; usage: AuxUsage | null }> {
  // The record the model reads is the one before this batch: the batch's extractive items are not shown to it.
  const batchIds = new Set(batch.flatMap((g) => [g.userMessageId, ...g.actions.map((a, k) => actionSource(g, a, k))]));
  const before: TaskState = { ...s, goal: s.goal && batchIds.has(s.goal.source) ? null : s.goal };
  for (const k of [...sections, "files", "symbols", "asked"] as const) before[k] = s[k].filter((i) => !batchIds.has(i.source));
  const r = await chat("state", stateSystem, stateRequest(before, batch));
  const reply = parseStateReply(r.text);
  if (typeof reply === "string")
    return { write: { task: s.task, groups: batch.map((g) => g.id), by: "extractive", reason: reply }, usage: r.usage };
  return { write: applyStateReply(s, reply, batch, messages), usage: r.usage };
}
