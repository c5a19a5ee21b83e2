import type { Action, Group } from "../../../src/rcm/history.js";

let seq = 0;

/** A harness-style request group (`Repository:`/`Workspace:` header). */
export function harnessGroup(workspace: string, text: string, actions: Action[] = [], id?: string): Group {
  const gid = id ?? `msg_${String(seq++).padStart(4, "0")}`;
  return { id: gid, userMessageId: gid, userText: `Repository: demo\nWorkspace: ${workspace}\n\n${text}`, actions };
}

export function plainGroup(text: string, actions: Action[] = [], id?: string): Group {
  const gid = id ?? `msg_${String(seq++).padStart(4, "0")}`;
  return { id: gid, userMessageId: gid, userText: text, actions };
}

export function write(path: string, messageId?: string): Action {
  return {
    kind: "tool",
    tool: "write",
    args: { filePath: path, content: "x" },
    paths: [path],
    status: "ok",
    text: "Wrote file successfully.",
    ...(messageId ? { messageId } : {}),
  };
}

export function say(text: string, messageId?: string): Action {
  return { kind: "assistant", text, ...(messageId ? { messageId } : {}) };
}

/** A successful read whose output is `chars` characters of file content. */
export function read(path: string, chars: number, messageId?: string): Action {
  return {
    kind: "tool",
    tool: "read",
    args: { filePath: path },
    paths: [path],
    status: "ok",
    text: "x = 1\n".repeat(Math.ceil(chars / 6)).slice(0, chars),
    ...(messageId ? { messageId } : {}),
  };
}
