import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { parseScript } from "../../src/mock-model/script.js";
import { startRcmProxy, type RcmProxy } from "../../src/rcm/proxy/server.js";
import { applyStateReply, citableMessages, parseStateReply, stateBatches, stateRequest } from "../../src/rcm/state-writer.js";
import { isStateWritingCall, stateWriterAnswer } from "../../src/mock-model/state-writer-answer.js";
import { stateSystem } from "../../src/rcm/state-writer.js";
import { emptyTaskState } from "../../src/rcm/state-record.js";
import { foldGroup } from "../../src/rcm/state-updater.js";
import { write } from "./helpers/history.js";
import { checkRefs, saysIt } from "../../src/rcm/state-check.js";
import { elidedNote } from "../../src/rcm/assembly.js";
import { plainGroup, read } from "./helpers/history.js";

type Json = Record<string, unknown>;
const tools = [
  { type: "function", function: { name: "write", description: "write a file", parameters: { type: "object", properties: {} } } },
];

/** The proxy's id of a request: the hash of its text (proxy/conversation.ts). */
const gid = (text: string) => `g_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;

const ask = (ws: string, text: string) => `Repository: demo\nWorkspace: /r/${ws}\n\n${text}`;
const alpha1 = ask("w00", "ALPHA-1: create alpha.py with the constant A. Keep the module free of imports.");
const beta1 = ask("w01", "BETA-1: create beta.py with the constant B.");
const alpha2 = ask("w00", "ALPHA-2: add the constant C to alpha.py.");
const alpha3 = ask("w00", "ALPHA-3: add the constant D to alpha.py.");
// Tool output long enough to be worth eliding (assembly.ts, worthEliding); each group's is its own.
const output = (tag: string) => `Wrote alpha.py (${tag})\n${`${tag} = 1\n`.repeat(80)}`;

/** One completed exchange, as a CLI sends it: a write call, its result, the assistant's word. */
function exchange(call: string, path: string, result: string, said: string): Json[] {
  return [
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: call, type: "function", function: { name: "write", arguments: JSON.stringify({ filePath: path, content: "X = 1\n" }) } },
      ],
    },
    { role: "tool", tool_call_id: call, content: result },
    { role: "assistant", content: said },
  ];
}

let mock: MockModelServer | null = null;
let proxy: RcmProxy | null = null;
afterEach(async () => {
  await proxy?.close();
  await mock?.close();
  proxy = mock = null;
});

/** Sends the conversation to the proxy, as an agent's step; returns what reached the upstream for it. */
async function step(messages: Json[]): Promise<Json> {
  const before = mock!.requests().length;
  const res = await fetch(`${proxy!.baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "agent-model", messages, tools }),
  });
  expect(res.status).toBe(200);
  await res.json();
  return mock!
    .requests()
    .slice(before)
    .find((r) => (r.body as Json).tools !== undefined)!.body as Json;
}

const stateCalls = () =>
  mock!.requests().filter((r) => (r.body as Json).tools === undefined && JSON.stringify(r.body).includes("state memory"));
const userOf = (r: { body: unknown }) => (r.body as { messages: Array<{ content: string }> }).messages[1]!.content;

describe("model-written state through the proxy and the scripted model", () => {
  it("uses the model's items whose references check out, drops and counts the others, falls back to extractive on an answer that is not JSON, and elides only exchanges the record cites", async () => {
    const [u1, u2, u3] = [gid(alpha1), gid(beta1), gid(alpha2)];
    const state = (items: Json) => JSON.stringify(items);
    mock = await startMockModel({
      script: parseScript({
        turns: [
          {
            requests: "auxiliary",
            match: [`[${u1}] user: ALPHA-1`, `[${u1}#0] tool write`],
            text: state({
              goal: { text: "create alpha.py with the constant A", refs: [u1] },
              constraints: [
                { text: "Keep the module free of imports", refs: [u1] },
                { text: "never use tabs" }, // no reference
              ],
              progress: [
                { text: "wrote alpha.py", refs: [`${u1}#0`] },
                { text: "alpha.py created", refs: ["g_0000000000000000"] }, // no such message
                { text: "beta.py created", refs: [u2] }, // a message of another task
                { text: "added unit tests for everything", refs: [`${u1}#0`] }, // the message does not say it
              ],
              pending: [],
              files: ["alpha.py", "gamma.py"], // gamma.py: no message of the task names it
            }),
          },
          { requests: "auxiliary", match: `[${u2}] user: BETA-1`, text: "Sure, here is the state of BETA: beta.py was created." },
          {
            requests: "auxiliary",
            match: `[${u3}] user: ALPHA-2`,
            text: state({ progress: [{ text: "add the constant C to alpha.py", refs: [u3] }] }),
          },
        ],
        fallback: "Working on it.",
      }),
    });
    // keepRecent 0: every earlier group of the task may be elided, so only the record decides.
    proxy = await startRcmProxy({ upstream: mock.baseURL, mode: "rcm", single: true, rcm: { keepRecent: 0 } });
    const messages: Json[] = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: alpha1 },
    ];
    await step(messages);
    messages.push(...exchange("c1", "/r/w00/alpha.py", output("A"), "Created alpha.py."), { role: "user", content: beta1 });
    await step(messages);
    messages.push(...exchange("c2", "/r/w01/beta.py", "Wrote beta.py", "Created beta.py."), { role: "user", content: alpha2 });
    await step(messages);
    messages.push(...exchange("c3", "/r/w00/alpha.py", output("C"), "Added C."), { role: "user", content: alpha3 });
    const last = await step(messages);

    // One state-writing call per completed request, tool-free, in the agent's wire format and model,
    // each message after its id; the record it reads is the one before the batch.
    const calls = stateCalls();
    expect(
      calls.map((c) => [userOf(c).includes(`[${u1}] user:`), userOf(c).includes(`[${u2}] user:`), userOf(c).includes(`[${u3}] user:`)]),
    ).toEqual([
      [true, false, false],
      [false, true, false],
      [false, false, true],
    ]);
    expect((calls[0]!.body as Json).model).toBe("agent-model");
    expect(userOf(calls[0]!)).toContain("Current record:\n(empty)");
    expect(userOf(calls[2]!)).toContain("wrote alpha.py");

    const memory = [...new Set(proxy.engines().values())][0]!.memory;
    const t1 = memory.states.t1!;
    expect(t1.goal).toMatchObject({ text: "create alpha.py with the constant A", kind: "requirement", refs: [u1] });
    expect(t1.constraints.map((i) => i.text)).toEqual(["Keep the module free of imports"]);
    expect(t1.completed.map((i) => [i.text, i.kind, i.request])).toEqual([
      ["wrote alpha.py", "observation", 1],
      ["add the constant C to alpha.py", "requirement", 2],
    ]);
    // The named alpha.py is kept; the edit the extractive updater saw outranks the mention.
    expect(t1.files.map((f) => f.text)).toContain("alpha.py (edited)");
    expect(t1.files.map((f) => f.text).join()).not.toContain("gamma.py");
    expect(memory.writes!.recent[0]!.dropped!.map((d) => [d.section, d.why])).toEqual([
      ["constraints", "no reference"],
      ["progress", "unknown message"],
      ["progress", "message of another task"],
      ["progress", "the messages do not say it"],
      ["files", "no message of the task names it"],
    ]);
    // BETA's answer was no JSON: its batch stays as the deterministic updater folded it, and says why.
    expect(memory.states.t2!.completed.map((i) => i.text)).toEqual(["request 1: changed beta.py"]);
    expect(memory.writes).toMatchObject({ model: 2, extractive: 1, dropped: 5 });

    // The RCM log says who wrote each batch.
    const log = proxy.entries().filter((e) => e.action === "assembled");
    expect(log.every((e) => e.state === "model")).toBe(true);
    expect(log.map((e) => (e.state_writes ?? []).map((w) => [w.task, w.by, w.reason ?? null]))).toEqual([
      [],
      [["t1", "model", null]],
      [["t2", "extractive", "answer is not JSON"]],
      [["t1", "model", null]],
    ]);

    // ALPHA-3: ALPHA-1's exchange is cited by the record ("wrote alpha.py") and elided; ALPHA-2's is
    // cited by no item (its progress item cites the request) and stays verbatim, though as long.
    const sent = JSON.stringify(last);
    expect(sent).not.toContain("BETA-1");
    expect(sent.split(elidedNote).length - 1).toBe(1);
    expect(sent).not.toContain("A = 1");
    expect(sent).toContain("C = 1");
    expect(sent).toMatch(/<task-state task=\\"t1\\">[^<]*- wrote alpha.py \[observation, request 1\]/);
    expect(log[3]!.elided).toEqual([`${u1}:t1`]);
  });

  it("folds a long history in bounded batches: at most batchSize groups per call, the rest on the next step", async () => {
    const reqs = [1, 2, 3].map((n) => ask("w00", `ALPHA-${n}: add the constant K${n} to alpha.py.`));
    mock = await startMockModel({ script: parseScript({ turns: [], fallback: "{}" }) });
    proxy = await startRcmProxy({ upstream: mock.baseURL, mode: "rcm", single: true, rcm: { batchSize: 2 } });
    // An agent resumed on a conversation of three completed requests: the first step may fold two.
    const messages: Json[] = reqs.flatMap((r, n) => [{ role: "user", content: r }, ...exchange(`c${n}`, "/r/w00/alpha.py", "ok", "Done.")]);
    messages.push({ role: "user", content: ask("w00", "ALPHA-4: add the constant K4 to alpha.py.") });
    await step(messages);
    expect(stateCalls().map((c) => reqs.map((r) => userOf(c).includes(`[${gid(r)}] user:`)))).toEqual([[true, true, false]]);
    messages.push(...exchange("c9", "/r/w00/alpha.py", "ok", "Done."), {
      role: "user",
      content: ask("w00", "ALPHA-5: add the constant K5 to alpha.py."),
    });
    await step(messages);
    expect(stateCalls().map((c) => reqs.map((r) => userOf(c).includes(`[${gid(r)}] user:`)))).toEqual([
      [true, true, false],
      [false, false, true],
    ]);
  });
});

describe("the pieces of model-written state", () => {
  it("cuts batches at the character bound too; a group longer than the bound is a batch of its own", () => {
    const g = (id: string, chars: number) => plainGroup(`request ${id}`, [read("a.py", chars)], id);
    // Exchanges are clipped to 600 characters in the call (about 650 a group here): four fit 3,000; 1,500 holds two.
    const four = ["a", "b", "c", "d"].map((id) => g(id, 5000));
    expect(stateBatches(four, 8, 3000).map((b) => b.map((x) => x.id))).toEqual([["a", "b", "c", "d"]]);
    expect(stateBatches(four, 8, 1500).map((b) => b.map((x) => x.id))).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
    expect(stateBatches(four, 3, 100).map((b) => b.map((x) => x.id))).toEqual([["a"], ["b"], ["c"], ["d"]]);
    expect(stateBatches(four, 3).map((b) => b.length)).toEqual([3, 1]);
  });

  it("'says it': half the item's key words, by their first five letters, in the cited messages", () => {
    expect(saysIt("rounding of negative amounts fixed", ["Fix how negative amounts round."])).toBe(true); // negat, amoun (2 of 3: round+ing → "round")
    expect(saysIt("added unit tests for the parser", ["Wrote alpha.py"])).toBe(false);
    expect(saysIt("done", ["done"])).toBe(false); // no key word: nothing checkable
    expect(saysIt("parseAmount handles parentheses", ["`parse_amount` reads (1.00) as negative: parentheses"])).toBe(true);
    const messages = new Map([
      ["m1", { tasks: ["t1"], role: "user" as const, text: "Keep alpha.py free of imports." }],
      ["m2", { tasks: ["t2"], role: "user" as const, text: "Keep beta.py free of imports." }],
    ]);
    expect(checkRefs("alpha.py has no imports", ["m1"], "t1", messages)).toBeNull();
    expect(checkRefs("beta.py has no imports", ["m2"], "t1", messages)).toBe("message of another task");
    expect(checkRefs("alpha.py has no imports", ["m1", "m3"], "t1", messages)).toBe("unknown message");
    expect(checkRefs("alpha.py has no imports", [], "t1", messages)).toBe("no reference");
  });

  it("the context-bound model's state (the known-answer experiment) passes the reference check whole", () => {
    const groups = [
      plainGroup(
        "Add rounding to `format_amount` in ledger/amount.py. Amounts must keep two decimals.",
        [write("ledger/amount.py", "a1")],
        "u1",
      ),
      plainGroup("Next, make `format_amount` accept a currency symbol.", [write("ledger/amount.py", "a2")], "u2"),
    ];
    const assignments = {
      u1: { task: "t1", confidence: 1, method: "first" as const },
      u2: { task: "t1", confidence: 0.9, method: "refs" as const },
    };
    const s = emptyTaskState("t1", null);
    const prompt = stateRequest(s, groups);
    expect(isStateWritingCall(stateSystem)).toBe(true);
    for (const g of groups) foldGroup(s, g);
    const reply = parseStateReply(stateWriterAnswer(prompt));
    if (typeof reply === "string") throw new Error(reply);
    const w = applyStateReply(s, reply, groups, citableMessages(groups, assignments));
    expect(w.dropped).toEqual([]);
    expect(s.goal).toMatchObject({ text: "Add rounding to `format_amount` in ledger/amount.py.", refs: ["u1"] });
    expect(s.constraints.map((i) => i.text)).toEqual(["Amounts must keep two decimals."]);
    expect(s.completed.map((i) => [i.kind, i.refs])).toEqual([
      ["observation", ["u1", "a1"]],
      ["observation", ["u2", "a2"]],
    ]);
  });
});
