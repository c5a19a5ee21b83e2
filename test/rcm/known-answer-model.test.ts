import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseScript } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { knownAnswersSchema } from "../../src/mock-model/context-bound.js";
import { emptyTaskState, renderTaskState } from "../../src/rcm/state-record.js";
import { foldGroup } from "../../src/rcm/state-updater.js";

const stage1 = "Add a thousands separator to format_amount. It must keep today's output by default.";
const stage2 = "Also write negative amounts in parentheses when asked. The default stays the minus sign.";
const table = knownAnswersSchema.parse({
  format: "switch-swe.known-answers/1",
  window: 1000,
  shell: { name: "Bash", command: "command", extra: { description: "write" } },
  stages: [
    { task: "fmt", stage: 1, key: "Add a thousands separator", text: stage1, writes: [{ known: [], files: { "fmt.py": "SEP = 1\n" } }] },
    {
      task: "fmt",
      stage: 2,
      key: "Also write negative amounts in parentheses",
      text: stage2,
      writes: [
        { known: [], files: { "fmt.py": "PARENS = 1\n" } },
        { known: [1], files: { "fmt.py": "SEP = 1\nPARENS = 1\n" } },
      ],
    },
  ],
});
const msg = (text: string) => `Repository: demo\nWorkspace: /w/w01\n\n${text}`;
const tools = [{ name: "Bash", description: "run", input_schema: { type: "object" } }];

describe("the context-bound model (known answers)", () => {
  let server: MockModelServer;
  beforeAll(async () => {
    server = await startMockModel({ script: parseScript([]), knownAnswers: table });
  });
  afterAll(() => server.close());
  const ask = async (messages: unknown[]) => {
    const r = await fetch(`${server.origin}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "m", max_tokens: 100, tools, messages }),
    });
    return (await r.json()) as {
      content: Array<{ type: string; text?: string; input?: { command: string } }>;
      usage: { input_tokens: number };
    };
  };
  const written = (a: Awaited<ReturnType<typeof ask>>) =>
    a.content
      .filter((c) => c.type === "tool_use")
      .map((c) => /printf '%s' '([^']+)'/.exec(c.input!.command)![1]!)
      .map((b) => Buffer.from(b, "base64").toString("utf8"));

  it("implements a stage with the earlier stages whose requirements it sees, and only those", async () => {
    const withStage1 = await ask([
      { role: "user", content: msg(stage1) },
      { role: "assistant", content: "ok" },
      { role: "user", content: msg(stage2) },
    ]);
    expect(written(withStage1)).toEqual(["SEP = 1\nPARENS = 1\n"]);
    const forgot = await ask([
      { role: "user", content: "<summary>The latest request: something else</summary>" },
      { role: "assistant", content: "ok" },
      { role: "user", content: msg(stage2) },
    ]);
    expect(written(forgot)).toEqual(["PARENS = 1\n"]);
    // A state record that carries stage 1's requirement counts as seeing it.
    const record = emptyTaskState("t1", "/w/w01");
    foldGroup(record, { id: "g1", userMessageId: "g1", userText: msg(stage1), actions: [] });
    const shown = renderTaskState(record)!;
    expect(shown).toContain("Add a thousands separator");
    expect(written(await ask([{ role: "user", content: `${shown}\n\n${msg(stage2)}` }]))).toEqual(["SEP = 1\nPARENS = 1\n"]);
  });

  it("answers in text once its writes are in the conversation; refuses a conversation over its window; summarizes lossily", async () => {
    const first = await ask([{ role: "user", content: msg(stage2) }]);
    const call = first.content.find((c) => c.type === "tool_use")!;
    const after = await ask([
      { role: "user", content: msg(stage2) },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: call.input }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "" }] },
    ]);
    expect(after.content.map((c) => c.type)).toEqual(["text"]);
    expect(first.usage.input_tokens).toBeLessThan(1000);
    const long = await fetch(`${server.origin}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({
        model: "m",
        max_tokens: 100,
        tools,
        messages: [{ role: "user", content: msg(`${stage2} ${"and more ".repeat(600)}`) }],
      }),
    });
    expect(long.status).toBe(400);
    expect(await long.text()).toMatch(/prompt is too long: \d+ tokens > 1000 maximum/);
    const summary = await ask([
      { role: "user", content: msg(stage1) },
      { role: "assistant", content: "done" },
      { role: "user", content: msg(stage2) },
      { role: "assistant", content: "done" },
      { role: "user", content: "Your task is to create a detailed summary of the conversation so far." },
    ]);
    const text = summary.content.find((c) => c.type === "text")!.text!;
    expect(text).toContain(stage2);
    expect(text).not.toContain("thousands separator");
  });
});

describe("the state record after a host's compaction", () => {
  it("lists the requests the history no longer holds, by their opening sentence, and none it holds", () => {
    const s = emptyTaskState("t1", "/w/w01");
    foldGroup(s, { id: "g1", userMessageId: "g1", userText: msg(stage1), actions: [] });
    foldGroup(s, { id: "g2", userMessageId: "g2", userText: msg(stage2), actions: [] });
    expect(renderTaskState(s, new Set(["g1", "g2"])) ?? "").not.toContain("Requests no longer");
    const after = renderTaskState(s, new Set(["g3"]))!;
    expect(after).toContain("Requests no longer in the conversation:\n- request 2: Also write negative amounts in parentheses when asked.");
    expect(after).toContain("Goal: Add a thousands separator to format_amount.");
  });
});
