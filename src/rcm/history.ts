/**
 * The host-neutral history model of RCM. A host (OpenCode, a replayed trajectory) turns its own
 * messages into interaction groups: one user request and the assistant actions and tool results that
 * answered it. Nothing here knows about any host.
 */

export type ActionKind = "assistant" | "tool";

export interface Action {
  kind: ActionKind;
  /** Assistant text, or the tool's output (possibly truncated by the host). */
  text: string;
  /** Tool name (tool actions). */
  tool?: string;
  /** Tool arguments as the model sent them. */
  args?: unknown;
  /** Files the tool read or wrote, as the host reports them. */
  paths?: string[];
  /** Outcome of a tool call, when known. */
  status?: "ok" | "error";
  /** Id of the host message that holds this action (the source of state items). */
  messageId?: string;
}

export interface Group {
  /** Stable id; hosts use the user message id. */
  id: string;
  /** The user's request, exactly as sent. */
  userText: string;
  userMessageId: string;
  actions: Action[];
}

export const rcmModes = ["off", "router", "rcm"] as const;
/** off: the host's history unchanged; router: routing and compaction guidance; rcm: routing plus state memory. */
export type RcmMode = (typeof rcmModes)[number];

/** Tools whose successful call changes files (OpenCode, Claude Code, Codex, Gemini CLI names). */
const writingTools =
  /^(write|edit|multiedit|apply_patch|patch|str_replace|create|insert|notebook_edit|notebookedit|write_file|replace|edit_file)$/i;

export function isWritingTool(name: string | undefined): boolean {
  return name !== undefined && writingTools.test(name);
}

/** The text of a group as a model would read it (used for similarity and token counts). */
export function actionText(a: Action): string {
  if (a.kind === "assistant") return a.text;
  const args = a.args === undefined ? "" : safeJson(a.args);
  return `${a.tool ?? "tool"} ${args}\n${a.text}`;
}

export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}
