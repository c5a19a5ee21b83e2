import { mkdirSync, readFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ClaudeCodeParser } from "../../src/agents/claude-code-events.js";
import type { InvocationParser } from "../../src/agents/cli-conversation.js";
import { CodexParser, zeroUsage, type CodexThreadState } from "../../src/agents/codex-events.js";
import { GeminiParser, newGeminiState } from "../../src/agents/gemini-events.js";
import { tokenTotal, type AgentEvent } from "../../src/formats/trajectory.js";
import { tempDir } from "../helpers/temp.js";
import { modelCallSums } from "./helpers/converse.js";

/**
 * Real event streams, recorded from the pinned CLIs talking to `switch-swe mock-model` with a script
 * of known usage: request 1 = two model calls (1000 input of which 300 cached, 40 output of which 10
 * reasoning; then 1200 input, 10 output), request 2 (the resumed conversation) = one call (1500, 15).
 */
const fixture = (name: string) =>
  readFileSync(join(__dirname, "fixtures", name), "utf8")
    .trim()
    .split("\n");

/** Splits a recorded stdout into invocations at each line that ends one. */
function invocations(lines: string[], last: (line: string) => boolean): string[][] {
  const out: string[][] = [[]];
  for (const line of lines) {
    out.at(-1)!.push(line);
    if (last(line)) out.push([]);
  }
  return out.filter((x) => x.length > 0);
}

function feed(parser: InvocationParser, lines: string[], before?: () => void) {
  const events: AgentEvent[] = [];
  for (const l of lines) parser.line(l, (e) => events.push(e));
  before?.();
  const summary = parser.end((e) => events.push(e));
  return { events, summary };
}

const total = (events: AgentEvent[]) => events.reduce((n, e) => n + (e.kind === "model_call" ? tokenTotal(e) : 0), 0);

describe("claude-code stream (stream-json with raw stream events)", () => {
  it("one model_call per API message with exact tokens; the session's cumulative cost becomes per-request differences", () => {
    const runs = invocations(fixture("claude-stream.jsonl"), (l) => l.includes('"type":"result"'));
    expect(runs).toHaveLength(2);
    let cost = 0;
    const costs: number[] = [];
    const results = runs.map((lines) =>
      feed(
        new ClaudeCodeParser(cost, (after) => {
          costs.push(after);
          cost = after;
        }),
        lines,
      ),
    );
    const [first, second] = results.map((r) => r.events);
    expect(modelCallSums(first!)).toMatchObject({ calls: 2, input: 700 + 1200, cached: 300, output: 50 });
    expect(modelCallSums(second!)).toMatchObject({ calls: 1, input: 1500, cached: 0, output: 15 });
    expect(total([...first!, ...second!])).toBe(1000 + 40 + 1200 + 10 + 1500 + 15);
    // Cost: the result reports the running total; each request records only its own share.
    expect(costs).toHaveLength(2);
    expect(modelCallSums(first!).cost).toBeCloseTo(costs[0]!, 9);
    expect(modelCallSums(second!).cost).toBeCloseTo(costs[1]! - costs[0]!, 9);
    expect(modelCallSums([...first!, ...second!]).cost).toBeCloseTo(costs[1]!, 9);
    const tool = first!.find((e) => e.kind === "tool_call");
    expect(tool).toMatchObject({ name: "Write", status: "completed", paths: [expect.stringMatching(/\/w01\/a\.txt$/)] });
    expect(results.map((r) => r.summary)).toEqual([
      { conversationId: "5b1f3c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b", modelCalls: 2 },
      { conversationId: "5b1f3c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b", modelCalls: 1 },
    ]);
  });

  it("an API error reported in the result is an agent error, and a cut stream still counts what it reported", () => {
    const p = new ClaudeCodeParser(0);
    const events: AgentEvent[] = [];
    p.line(
      JSON.stringify({
        type: "stream_event",
        event: { type: "message_start", message: { id: "m1", model: "c", usage: { input_tokens: 5, output_tokens: 1 } } },
      }),
      (e) => events.push(e),
    );
    p.line(
      JSON.stringify({
        type: "result",
        subtype: "success",
        is_error: true,
        result: "API Error: 400 bad request",
        usage: { input_tokens: 5, output_tokens: 1 },
      }),
      (e) => events.push(e),
    );
    expect(p.end((e) => events.push(e))).toMatchObject({ error: "API Error: 400 bad request", modelCalls: 1 });
    expect(events).toEqual([
      { kind: "model_call", model: "c", input_tokens: 5, output_tokens: 1, cached_input_tokens: 0, cache_write_tokens: 0 },
    ]);
  });
});

describe("codex stream (exec --json, usage cumulative per thread)", () => {
  const runs = () => invocations(fixture("codex-stream.jsonl"), (l) => l.includes('"type":"turn.completed"'));

  it("without the rollout file: one model_call per request, the difference of the thread's running totals", () => {
    const state: CodexThreadState = { thread: null, usage: zeroUsage, rolloutOffset: 0 };
    const [first, second] = runs().map((lines) => feed(new CodexParser(state, "gpt-x", null), lines).events);
    expect(modelCallSums(first!)).toEqual({ calls: 1, input: 2200 - 300, cached: 300, cacheWrite: 0, output: 50, reasoning: 10, cost: 0 });
    expect(modelCallSums(second!)).toEqual({ calls: 1, input: 1500, cached: 0, cacheWrite: 0, output: 15, reasoning: 0, cost: 0 });
    expect(total([...first!, ...second!])).toBe(1000 + 40 + 1200 + 10 + 1500 + 15);
    expect(first!.find((e) => e.kind === "tool_call")).toMatchObject({ name: "exec_command", status: "completed" });
  });

  it("with the rollout file: one model_call per inference step", () => {
    const home = tempDir("switch-swe-codex-home-");
    const thread = JSON.parse(fixture("codex-stream.jsonl")[0]!).thread_id as string;
    const dir = join(home, "sessions", "2026", "12", "01");
    mkdirSync(dir, { recursive: true });
    const rollout = join(dir, `rollout-2026-12-01T03-42-41-${thread}.jsonl`);
    const counts = fixture("codex-rollout-token-counts.jsonl");
    const state: CodexThreadState = { thread: null, usage: zeroUsage, rolloutOffset: 0 };
    const [lines1, lines2] = runs();
    const first = feed(new CodexParser(state, "gpt-x", home), lines1!, () => appendFileSync(rollout, `${counts.slice(0, 2).join("\n")}\n`));
    const second = feed(new CodexParser(state, "gpt-x", home), lines2!, () => appendFileSync(rollout, `${counts[2]!}\n`));
    const calls = (evs: AgentEvent[]) => evs.filter((e) => e.kind === "model_call");
    expect(calls(first.events)).toEqual([
      {
        kind: "model_call",
        model: "gpt-x",
        input_tokens: 700,
        cached_input_tokens: 300,
        output_tokens: 40,
        reasoning_tokens: 10,
        reasoning_in_output: true,
      },
      {
        kind: "model_call",
        model: "gpt-x",
        input_tokens: 1200,
        cached_input_tokens: 0,
        output_tokens: 10,
        reasoning_tokens: 0,
        reasoning_in_output: true,
      },
    ]);
    expect(calls(second.events)).toEqual([
      {
        kind: "model_call",
        model: "gpt-x",
        input_tokens: 1500,
        cached_input_tokens: 0,
        output_tokens: 15,
        reasoning_tokens: 0,
        reasoning_in_output: true,
      },
    ]);
    expect(second.summary).toEqual({ conversationId: thread, modelCalls: 1 });
  });

  it("turn.failed is an agent error", () => {
    const state: CodexThreadState = { thread: null, usage: zeroUsage, rolloutOffset: 0 };
    const r = feed(new CodexParser(state, undefined, null), [
      JSON.stringify({ type: "thread.started", thread_id: "t1" }),
      JSON.stringify({ type: "turn.failed", error: { message: "unexpected status 400 Bad Request" } }),
    ]);
    expect(r.summary).toEqual({ error: "unexpected status 400 Bad Request", conversationId: "t1", modelCalls: 0 });
  });
});

describe("gemini stream (stream-json, usage from the session's chat file)", () => {
  const runs = () => invocations(fixture("gemini-stream.jsonl"), (l) => l.includes('"type":"result"'));

  it("with the chat file: one model_call per model message, thoughts apart from output", () => {
    const dir = join(tempDir("switch-swe-gemini-home-"), ".gemini");
    const session = JSON.parse(fixture("gemini-stream.jsonl")[0]!).session_id as string;
    const chats = join(dir, "tmp", "work", "chats");
    mkdirSync(chats, { recursive: true });
    const chat = join(chats, `session-2026-12-01T03-42-${session.slice(0, 8)}.jsonl`);
    const lines = fixture("gemini-chat.jsonl");
    const state = newGeminiState();
    const [l1, l2] = runs();
    const first = feed(new GeminiParser(state, dir), l1!, () => appendFileSync(chat, `${lines.slice(0, 12).join("\n")}\n`));
    const second = feed(new GeminiParser(state, dir), l2!, () => appendFileSync(chat, `${lines.slice(12).join("\n")}\n`));
    expect(modelCallSums(first.events)).toEqual({
      calls: 2,
      input: 700 + 1200,
      cached: 300,
      cacheWrite: 0,
      output: 30 + 10,
      reasoning: 10,
      cost: 0,
    });
    expect(modelCallSums(second.events)).toEqual({ calls: 1, input: 1500, cached: 0, cacheWrite: 0, output: 15, reasoning: 0, cost: 0 });
    expect(total([...first.events, ...second.events])).toBe(1000 + 40 + 1200 + 10 + 1500 + 15);
    expect(first.events.find((e) => e.kind === "tool_call")).toMatchObject({
      name: "write_file",
      status: "success",
      paths: [expect.stringMatching(/\/w01\/a\.txt$/)],
    });
    expect(second.summary).toEqual({ conversationId: session, modelCalls: 1 });
  });

  it("without the chat file: the invocation's stats as one model_call (thoughts are not in them)", () => {
    const state = newGeminiState();
    const [first] = runs().map((lines) => feed(new GeminiParser(state, null), lines).events);
    expect(modelCallSums(first!)).toMatchObject({ calls: 1, input: 2200 - 300, cached: 300, output: 40 });
  });
});
