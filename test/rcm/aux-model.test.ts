import { afterEach, describe, expect, it } from "vitest";
import { parseScript } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { RcmEngine } from "../../src/rcm/engine.js";
import type { Group } from "../../src/rcm/history.js";
import { parseRcmOptions } from "../../src/rcm/options.js";
import { plainGroup, say, write } from "./helpers/history.js";

let server: MockModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function engineWith(turns: unknown[], more: Record<string, unknown> = {}, stateUpdates = true): Promise<RcmEngine> {
  server = await startMockModel({ script: parseScript({ turns, fallback: "{}" }), port: 0 });
  return new RcmEngine(
    parseRcmOptions({ mode: "rcm", auxModel: { baseURL: server.baseURL, model: "mock", stateUpdates, timeoutMs: 5000 }, ...more }),
  );
}

const routeCalls = () => server!.requests().filter((r) => JSON.stringify(r.body).includes("New request")).length;

/** Feeds groups one by one, as a host would: each is the current request once, then gets its actions. */
async function replay(e: RcmEngine, groups: Group[]): Promise<void> {
  const seen: Group[] = [];
  for (const g of groups) {
    const actions = g.actions;
    const current = { ...g, actions: [] as Group["actions"] };
    seen.push(current);
    await e.prepareAsync(seen);
    current.actions.push(...actions);
  }
}

const history = () => [
  plainGroup(
    "Implement `parse_amount` in ledger/amount.py for negative values in parentheses.",
    [write("ledger/amount.py", "a1"), say("Done.", "a1")],
    "u1",
  ),
  plainGroup("Write the income report renderer in reports/income.py with a grand total row.", [write("reports/income.py", "a2")], "u2"),
  plainGroup("ok, go on", [], "u3"),
  plainGroup("Anything else?", [], "u4"),
];

describe("RCM's auxiliary model (against the scripted server)", () => {
  it("decides an undecided request and writes the task records from completed interactions, references checked; its calls are usage", async () => {
    const e = await engineWith([
      { requests: "auxiliary", match: ["New request", "ok, go on"], text: '{"task": "t1", "confidence": 0.9}' },
      {
        requests: "auxiliary",
        match: "[u1] user: Implement `parse_amount`",
        text: JSON.stringify({
          goal: { text: "parse_amount reads negative values in parentheses", refs: ["u1"] },
          progress: [{ text: "parse_amount in ledger/amount.py written", refs: ["a1"] }],
          pending: [{ text: "document the parentheses rule" }],
          uncertainties: [{ text: "thousands separators not covered" }],
        }),
      },
      { requests: "auxiliary", match: "[u2] user: Write the income report", text: '{"pending": [{"text": "add a subtotal per quarter"}]}' },
    ]);
    await replay(e, history());
    expect(e.memory.router.assignments.u3).toMatchObject({ task: "t1", method: "aux", confidence: 0.9 });
    const s = e.memory.states.t1!;
    expect(s.goal).toMatchObject({
      text: "parse_amount reads negative values in parentheses",
      kind: "requirement",
      source: "u1",
      refs: ["u1"],
    });
    // The model's progress item replaced the extractive ones of the same messages; it cites a tool result: an observation.
    expect(s.completed).toEqual([
      expect.objectContaining({ text: "parse_amount in ledger/amount.py written", kind: "observation", source: "a1", request: 1 }),
    ]);
    expect(s.uncertainties).toContainEqual(expect.objectContaining({ text: "thousands separators not covered", kind: "claim" }));
    // The model's pending list replaced the extractive one of its batch ("request 1: …").
    expect(s.pending[0]).toMatchObject({ text: "document the parentheses rule", kind: "claim", source: "u1" });
    expect(s.pending.some((i) => i.text.startsWith("request 1:"))).toBe(false);
    expect(e.memory.states.t2!.pending).toEqual([expect.objectContaining({ text: "add a subtotal per quarter", source: "u2" })]);
    // u1, u2 and u3 (answered by the fallback "{}": a model write that adds nothing).
    expect(e.memory.writes).toMatchObject({ model: 3, extractive: 0, dropped: 0 });
    const usage = e.drainAuxUsage();
    expect(usage.filter((u) => u.purpose === "route").length).toBeGreaterThanOrEqual(1);
    expect(usage.filter((u) => u.purpose === "state").length).toBeGreaterThanOrEqual(1);
    expect(usage.every((u) => u.input_tokens > 0 && u.model === "mock")).toBe(true);
    expect(server!.requests().every((r) => (r.body as { tools?: unknown }).tools === undefined)).toBe(true);
  });

  it("stamps the model's items of a batch with the request of the message each cites, not the latest", async () => {
    const e = await engineWith([
      {
        requests: "auxiliary",
        match: ["[u1] user: Implement `parse_amount`", "[u2] user: In ledger/amount.py"],
        text: JSON.stringify({
          progress: [
            { text: "parse_amount handles parentheses", refs: ["u1"] },
            { text: "parse_amount strips currency symbols", refs: ["u2"] },
          ],
        }),
      },
    ]);
    // A host that starts with a history (a restart): both completed requests are folded in one step, one call.
    await e.prepareAsync([
      plainGroup(
        "Implement `parse_amount` in ledger/amount.py for negative values in parentheses.",
        [write("ledger/amount.py", "a1")],
        "u1",
      ),
      plainGroup("In ledger/amount.py, `parse_amount` must also strip currency symbols.", [write("ledger/amount.py", "a2")], "u2"),
      plainGroup("Anything else?", [], "u3"),
    ]);
    const completed = e.memory.states[e.memory.router.assignments.u1!.task!]!.completed;
    expect(completed.map((i) => [i.text, i.request])).toEqual([
      ["parse_amount handles parentheses", 1],
      ["parse_amount strips currency symbols", 2],
    ]);
  });

  it("leaves the record as the deterministic updater made it when the model answers malformed output or an error", async () => {
    const e = await engineWith([
      { requests: "auxiliary", match: "User: Implement `parse_amount`", text: "Sure! Here is the state: completed = parse_amount" },
      {
        requests: "auxiliary",
        match: "User: Write the income report",
        text: '{"completed": "not a list", "pending": ["ok", 3], "uncertainties": [3, null]}',
      },
      { requests: "auxiliary", match: "New request", error: { status: 500, message: "upstream failed" } },
    ]);
    await replay(e, history());
    const plain = new RcmEngine(parseRcmOptions({ mode: "rcm" }));
    await replay(plain, history());
    expect(e.memory.states).toEqual(plain.memory.states);
    // The failed routing call kept the deterministic decision (below the threshold: full history).
    expect(e.memory.router.assignments.u3).toEqual(plain.memory.router.assignments.u3);
  });

  it("stops at the call budget, says so once, and keeps counting across a restart", async () => {
    const undecided = [...history(), plainGroup("ok, and then?", [], "u5"), plainGroup("go ahead", [], "u6")];
    const e = await engineWith(
      [{ requests: "auxiliary", match: "New request", text: '{"task": "t1", "confidence": 0.9}' }],
      { auxBudget: { calls: 1, tokens: 100_000 } },
      false,
    );
    await replay(e, undecided);
    expect(routeCalls()).toBe(1);
    expect(e.memory.aux).toMatchObject({ calls: 1, exhausted: true });
    expect(e.drainNotices()).toEqual([expect.stringContaining("budget used up (1/1 calls")]);
    // A restarted host with the saved memory makes no call and gives no second notice.
    const again = new RcmEngine(e.options, JSON.parse(JSON.stringify({ ...e.memory, router: { ...e.memory.router, assignments: {} } })));
    await replay(again, undecided);
    expect(routeCalls()).toBe(1);
    expect(again.drainNotices()).toEqual([]);
  });

  it("stops at the token budget: calls whose usage passes it end the auxiliary calls", async () => {
    const e = await engineWith(
      [
        {
          requests: "auxiliary",
          match: "New request",
          usage: { prompt_tokens: 900, completion_tokens: 200 },
          text: '{"task": "t1", "confidence": 0.5}',
        },
      ],
      { auxBudget: { calls: 50, tokens: 1000 } },
      false,
    );
    await replay(e, [...history(), plainGroup("ok, and then?", [], "u5"), plainGroup("go ahead", [], "u6")]);
    expect(routeCalls()).toBe(1);
    expect(e.memory.aux).toEqual({ calls: 1, tokens: 1100, exhausted: true });
    expect(e.drainNotices()).toHaveLength(1);
  });

  it("makes no call with auxModel off, nor by default outside a host (no host provider to ask)", async () => {
    server = await startMockModel({ script: parseScript({ turns: [], fallback: "{}" }), port: 0 });
    for (const auxModel of ["off", "host", undefined]) {
      const e = new RcmEngine(parseRcmOptions({ mode: "rcm", ...(auxModel ? { auxModel } : {}) }));
      await replay(e, history());
      expect(e.memory.aux).toBeUndefined();
    }
    expect(server.requests()).toHaveLength(0);
  });

  it("parses the auxModel forms and reports a bad one in one readable line", () => {
    expect(parseRcmOptions({}).auxModel).toBe("host");
    expect(parseRcmOptions({}).auxBudget).toEqual({ calls: 20, tokens: 50_000 });
    expect(parseRcmOptions({ auxModel: { host: true, model: "anthropic/claude-haiku" } }).auxModel).toEqual({
      host: true,
      model: "anthropic/claude-haiku",
    });
    expect(() => parseRcmOptions({ auxModel: { host: true, model: "no-provider" } })).toThrow(/^switch-swe RCM options: auxModel/);
    expect(() => parseRcmOptions({ auxModel: "sometimes" })).toThrow(/^switch-swe RCM options: auxModel/);
    expect(() => parseRcmOptions({ auxBudget: { calls: -1 } })).toThrow(/auxBudget\.calls/);
  });
});
