import type { HostMessage } from "../../../src/opencode-plugin/messages.js";

/** OpenCode-shaped messages ({info, parts}) as the transform hook receives them. */
export class Conversation {
  readonly messages: HostMessage[] = [];
  private n = 0;
  constructor(readonly sessionID = "ses_test") {}

  private id(prefix: string): string {
    return `${prefix}_${String(this.n++).padStart(4, "0")}`;
  }

  user(text: string, opts: { synthetic?: boolean } = {}): string {
    const id = this.id("msg");
    this.messages.push({
      info: { id, sessionID: this.sessionID, role: "user", time: { created: 0 }, agent: "build", model: { providerID: "p", modelID: "m" } },
      parts: [
        {
          id: this.id("prt"),
          sessionID: this.sessionID,
          messageID: id,
          type: "text",
          text,
          ...(opts.synthetic ? { synthetic: true } : {}),
        },
      ],
    } as HostMessage);
    return id;
  }

  assistant(parts: ({ text: string } | { tool: string; input: Record<string, unknown>; output?: string; error?: string })[]): string {
    const id = this.id("msg");
    this.messages.push({
      info: {
        id,
        sessionID: this.sessionID,
        role: "assistant",
        time: { created: 0 },
        parentID: "",
        modelID: "m",
        providerID: "p",
        mode: "build",
        path: { cwd: "/", root: "/" },
        cost: 0,
        tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      },
      parts: parts.map((p) =>
        "text" in p
          ? { id: this.id("prt"), sessionID: this.sessionID, messageID: id, type: "text", text: p.text }
          : {
              id: this.id("prt"),
              sessionID: this.sessionID,
              messageID: id,
              type: "tool",
              callID: this.id("call"),
              tool: p.tool,
              state:
                p.error !== undefined
                  ? { status: "error", input: p.input, error: p.error, time: { start: 0, end: 0 } }
                  : { status: "completed", input: p.input, output: p.output ?? "ok", title: "", metadata: {}, time: { start: 0, end: 0 } },
            },
      ),
    } as HostMessage);
    return id;
  }

  /** A fresh deep copy, as OpenCode loads the history again before every model step. */
  snapshot(): HostMessage[] {
    return structuredClone(this.messages);
  }
}
