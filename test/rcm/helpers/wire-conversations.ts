/**
 * One switched conversation written in each of the four model APIs, as an agent CLI would send it:
 * three requests of the focus task (workspace w00) with tool calls and their results, one request of
 * another task (w01), then the focus return. The current request carries an image, and an earlier
 * exchange of the focus task carries a part RCM does not know (thinking, reasoning): both must reach
 * the upstream untouched.
 */

type Json = Record<string, unknown>;

export interface Turn {
  user: string;
  call: { id: string; name: string; args: Json; result: string };
  reply: string;
}

const longContent = (name: string) =>
  `def ${name}(values):\n${"    # keeps the running total of the values given\n".repeat(12)}    return sum(v for v in values if v is not None)\n`;

export const turns: Turn[] = [
  {
    user: "Workspace: /ws/w00\n\nCreate src/alpha.py with a function alpha_total that sums a list of values.",
    call: {
      id: "c1",
      name: "write",
      args: { filePath: "/ws/w00/src/alpha.py", content: longContent("alpha_total") },
      result: "Wrote file successfully.",
    },
    reply: "Created src/alpha.py.",
  },
  {
    user: "Workspace: /ws/w00\n\nAdd alpha_mean to src/alpha.py: the mean of the values.",
    call: {
      id: "c2",
      name: "write",
      args: { filePath: "/ws/w00/src/alpha.py", content: longContent("alpha_mean") },
      result: "Wrote file successfully.",
    },
    reply: "Added alpha_mean.",
  },
  {
    user: "Workspace: /ws/w00\n\nAdd alpha_max to src/alpha.py: the largest value.",
    call: {
      id: "c3",
      name: "write",
      args: { filePath: "/ws/w00/src/alpha.py", content: longContent("alpha_max") },
      result: "Wrote file successfully.",
    },
    reply: "Added alpha_max.",
  },
  {
    user: "Workspace: /ws/w01\n\nCreate lib/beta.py with a class BetaParser that reads key=value lines.",
    call: {
      id: "c4",
      name: "write",
      args: { filePath: "/ws/w01/lib/beta.py", content: longContent("beta_parse") },
      result: "Wrote file successfully.",
    },
    reply: "Created BetaParser.",
  },
];

export const focusReturn = "Workspace: /ws/w00\n\nMake alpha_total in src/alpha.py skip None values.";
export const otherTaskMarker = "BetaParser";
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export interface WireCase {
  name: string;
  /** Path on the proxy (and the upstream). */
  path: (stream: boolean) => string;
  body: (stream: boolean) => Json;
  /** The parts that must arrive untouched: the image of the current request and the unknown part. */
  untouched: (body: Json) => { image: unknown; unknown: unknown };
  /** Text of the last user entry of a body (where the record goes). */
  lastUserText: (body: Json) => string;
}

const system = "You are a coding agent. Keep answers short.";
const toolDef = {
  name: "write",
  description: "write a file",
  parameters: { type: "object", properties: { filePath: { type: "string" }, content: { type: "string" } } },
};
const textOf = (v: unknown) => JSON.stringify(v);

export const openaiChatCase: WireCase = {
  name: "openai-chat",
  path: () => "/v1/chat/completions",
  body: (stream) => ({
    model: "mock",
    stream,
    tools: [{ type: "function", function: toolDef }],
    messages: [
      { role: "system", content: system },
      ...turns.flatMap((t) => [
        { role: "user", content: t.user },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: t.call.id, type: "function", function: { name: t.call.name, arguments: JSON.stringify(t.call.args) } }],
        },
        { role: "tool", tool_call_id: t.call.id, content: t.call.result },
        { role: "assistant", content: t.reply, ...(t.call.id === "c3" ? { reasoning_content: "kept as sent" } : {}) },
      ]),
      {
        role: "user",
        content: [
          { type: "text", text: focusReturn },
          { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
        ],
      },
    ],
  }),
  untouched: (b) => {
    const m = b.messages as Json[];
    return {
      image: (m[m.length - 1]!.content as Json[]).find((p) => p.type === "image_url"),
      unknown: m.find((x) => "reasoning_content" in x),
    };
  },
  lastUserText: (b) => textOf((b.messages as Json[]).filter((m) => m.role === "user").at(-1)),
};

export const anthropicCase: WireCase = {
  name: "anthropic-messages",
  path: () => "/v1/messages",
  body: (stream) => ({
    model: "mock",
    stream,
    max_tokens: 1000,
    system: [{ type: "text", text: system, cache_control: { type: "ephemeral" } }],
    tools: [{ name: toolDef.name, description: toolDef.description, input_schema: toolDef.parameters }],
    messages: [
      ...turns.flatMap((t) => [
        {
          role: "user",
          content: [
            { type: "text", text: "<system-reminder>Files may have changed.</system-reminder>" },
            { type: "text", text: t.user },
          ],
        },
        {
          role: "assistant",
          content: [
            ...(t.call.id === "c3" ? [{ type: "thinking", thinking: "kept as sent", signature: "sig" }] : []),
            { type: "tool_use", id: t.call.id, name: t.call.name, input: t.call.args },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: t.call.id, content: t.call.result }] },
        { role: "assistant", content: [{ type: "text", text: t.reply }] },
      ]),
      {
        role: "user",
        content: [
          { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
          { type: "text", text: focusReturn, cache_control: { type: "ephemeral" } },
        ],
      },
    ],
  }),
  untouched: (b) => {
    const m = b.messages as Json[];
    return {
      image: (m[m.length - 1]!.content as Json[]).find((p) => p.type === "image"),
      unknown: m.flatMap((x) => (Array.isArray(x.content) ? (x.content as Json[]) : [])).find((p) => p.type === "thinking"),
    };
  },
  lastUserText: (b) => textOf((b.messages as Json[]).at(-1)),
};

export const responsesCase: WireCase = {
  name: "openai-responses",
  path: () => "/v1/responses",
  body: (stream) => ({
    model: "mock",
    stream,
    store: false,
    tools: [{ type: "function", ...toolDef }],
    input: [
      { type: "message", role: "developer", content: [{ type: "input_text", text: system }] },
      {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: "<environment_context>\n  <cwd>/ws</cwd>\n</environment_context>" }],
      },
      ...turns.flatMap((t) => [
        { type: "message", role: "user", content: [{ type: "input_text", text: t.user }] },
        ...(t.call.id === "c3" ? [{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "kept as sent" }] : []),
        { type: "function_call", call_id: t.call.id, name: t.call.name, arguments: JSON.stringify(t.call.args) },
        { type: "function_call_output", call_id: t.call.id, output: t.call.result },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: t.reply, annotations: [] }] },
      ]),
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: focusReturn },
          { type: "input_image", image_url: `data:image/png;base64,${png}` },
        ],
      },
    ],
  }),
  untouched: (b) => {
    const items = b.input as Json[];
    return {
      image: (items[items.length - 1]!.content as Json[]).find((p) => p.type === "input_image"),
      unknown: items.find((x) => x.type === "reasoning"),
    };
  },
  lastUserText: (b) => textOf((b.input as Json[]).at(-1)),
};

export const geminiCase: WireCase = {
  name: "gemini",
  path: (stream) => `/v1beta/models/mock:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
  body: () => ({
    systemInstruction: { parts: [{ text: system }] },
    tools: [{ functionDeclarations: [toolDef] }],
    contents: [
      { role: "user", parts: [{ text: "<session_context>\nThis is the Gemini CLI.\n</session_context>" }] },
      { role: "model", parts: [{ text: "Got it." }] },
      ...turns.flatMap((t) => [
        { role: "user", parts: [{ text: t.user }] },
        {
          role: "model",
          parts: [
            ...(t.call.id === "c3" ? [{ text: "kept as sent", thought: true, thoughtSignature: "sig" }] : []),
            { functionCall: { name: t.call.name, args: t.call.args } },
          ],
        },
        { role: "user", parts: [{ functionResponse: { name: t.call.name, response: { output: t.call.result } } }] },
        { role: "model", parts: [{ text: t.reply }] },
      ]),
      { role: "user", parts: [{ text: focusReturn }, { inlineData: { mimeType: "image/png", data: png } }] },
    ],
  }),
  untouched: (b) => {
    const c = b.contents as Json[];
    return {
      image: (c[c.length - 1]!.parts as Json[]).find((p) => "inlineData" in p),
      unknown: c.flatMap((x) => x.parts as Json[]).find((p) => p.thought === true),
    };
  },
  lastUserText: (b) => textOf((b.contents as Json[]).at(-1)),
};

export const wireCases: WireCase[] = [openaiChatCase, anthropicCase, responsesCase, geminiCase];
