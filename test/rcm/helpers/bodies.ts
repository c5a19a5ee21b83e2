/** Reading recorded chat-completion request bodies. */

interface ChatBody {
  messages?: { role?: string; content?: unknown }[];
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p: { text?: unknown }) => (typeof p?.text === "string" ? p.text : "")).join("\n");
  return "";
}

/** The text of every user message of a request, in order. */
export function userTexts(body: unknown): string[] {
  return ((body as ChatBody)?.messages ?? []).filter((m) => m.role === "user").map((m) => text(m.content));
}

export function lastUserText(body: unknown): string {
  return userTexts(body).at(-1) ?? "";
}

/** Every message's text (user, assistant, tool), for "the whole history" checks. */
export function allTexts(body: unknown): string {
  return ((body as ChatBody)?.messages ?? []).map((m) => text(m.content)).join("\n");
}
