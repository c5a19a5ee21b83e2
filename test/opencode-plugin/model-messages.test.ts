import { convertToModelMessages, modelMessageSchema, type UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { applyPlan, historyView, type HostMessage } from "../../src/opencode-plugin/messages.js";
import { RcmEngine } from "../../src/rcm/engine.js";
import { parseRcmOptions } from "../../src/rcm/options.js";
import { Conversation } from "../rcm/helpers/opencode-messages.js";

/**
 * OpenCode 1.18.33's conversion of its messages for the model (MessageV2.toModelMessages, read from
 * its bundle): every text part carries its `metadata` as the AI SDK's `providerMetadata`, tool parts
 * become tool parts with their output; then the AI SDK's convertToModelMessages, and the prompt is
 * checked against modelMessageSchema ("The messages do not match the ModelMessage[] schema").
 */
function openCodeUiMessages(messages: HostMessage[]): UIMessage[] {
  return messages.map((m) => ({
    id: m.info.id,
    role: m.info.role,
    parts: m.parts.flatMap((p): UIMessage["parts"] => {
      if (p.type === "text") return [{ type: "text", text: p.text, ...(p.metadata ? { providerMetadata: p.metadata as never } : {}) }];
      if (p.type === "tool" && p.state.status === "completed")
        return [
          {
            type: `tool-${p.tool}`,
            state: "output-available",
            toolCallId: p.callID,
            input: p.state.input,
            output: p.state.output,
          } as UIMessage["parts"][number],
        ];
      return [];
    }),
  }));
}

describe("RCM's edits of OpenCode's history as the model receives them", () => {
  it("mode rcm: the elided note and the record pass the AI SDK's ModelMessage[] schema", async () => {
    const c = new Conversation();
    const ws = (w: string, text: string) => `Repository: demo\nWorkspace: /r/${w}\n\n${text}`;
    const long = "A = 1\n".repeat(200);
    c.user(ws("w00", "ALPHA-1: create alpha.py with the constant A."));
    c.assistant([
      { tool: "write", input: { filePath: "/r/w00/alpha.py", content: long }, output: "Wrote file successfully." },
      { tool: "bash", input: { command: "python -m pytest" }, output: "1 passed" },
    ]);
    c.assistant([{ text: "I added alpha.py and the tests pass." }]);
    c.user(ws("w00", "ALPHA-2: make A configurable in alpha.py."));
    c.assistant([
      { tool: "write", input: { filePath: "/r/w00/alpha.py", content: long }, output: "Wrote file successfully." },
      { text: "Done." },
    ]);
    c.user(ws("w01", "BETA-1: create beta.py with the constant B."));
    c.assistant([
      { tool: "write", input: { filePath: "/r/w01/beta.py", content: "B = 1\n" }, output: "Wrote file successfully." },
      { text: "Added beta.py." },
    ]);
    c.user(ws("w00", "ALPHA-3: document A in alpha.py."));
    const e = new RcmEngine(parseRcmOptions({ mode: "rcm", keepRecent: 0, auxModel: "off" }));
    // Each turn as the hook sees it, then the current step.
    for (const n of [1, 4, 6]) e.prepare(historyView(c.messages.slice(0, n)).groups);
    const messages = c.snapshot();
    const view = historyView(messages);
    const edits = applyPlan(messages, view, e.prepare(view.groups));
    expect(edits.notes.length, "an exchange elided").toBeGreaterThan(0);
    expect(edits.record, "a record in front of the request").not.toBeNull();
    const prompt = await convertToModelMessages(openCodeUiMessages(messages));
    const checked = modelMessageSchema.array().safeParse(prompt);
    expect(checked.success, checked.error?.message.slice(0, 600)).toBe(true);
  });
});
