import type { RecordedRequest } from "../../src/mock-model/server.js";

/** Every message of a recorded chat request as text (non-string content as JSON), one per line. */
export function allText(r: RecordedRequest): string {
  const body = r.body as { messages?: { content: unknown }[] };
  return (body.messages ?? []).map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}

/** Whether the request offered the model any tool (an agent step, not an auxiliary call). */
export const hasTools = (r: RecordedRequest): boolean => ((r.body as { tools?: unknown[] }).tools ?? []).length > 0;
