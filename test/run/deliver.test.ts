import { describe, expect, it } from "vitest";
import type { AgentRequest, AgentResult, Conversation, EventSink } from "../../src/agents/types.js";
import { InfraFault } from "../../src/core/infra-fault.js";
import type { ScheduleStep, WorkspaceName } from "../../src/formats/sessions.js";
import { trajectoryLineSchema, type TrajectoryLine } from "../../src/formats/trajectory.js";
import { emptyUsage } from "../../src/formats/usage.js";
import { deliverSchedule, RunInterrupted, type DeliverParams } from "../../src/run/deliver.js";
import { continuationMessage, finalizationMessage, stageMessage } from "../../src/run/message-templates.js";
import type { ProgressEvent } from "../../src/run/progress-events.js";
import { SessionRecorder } from "../../src/run/recorder.js";

// The request loop without git or processes: a scripted conversation answers each send.

const paths = { w00: "/ws/w00", w01: "/ws/w01", w02: "/ws/w02", w03: "/ws/w03", w04: "/ws/w04" } as Record<WorkspaceName, string>;

const schedule: ScheduleStep[] = [
  { kind: "stage", task: "f", stage: 1, text: "do one", workspace: "w00" },
  { kind: "stage", task: "i", stage: 1, text: "other", workspace: "w01" },
  { kind: "stage", task: "f", stage: 2, text: "do two", workspace: "w00" },
  { kind: "finalization", task: "f", workspace: "w00" },
];

function scripted(answers: Array<AgentResult & { events?: number }>) {
  const sent: AgentRequest[] = [];
  const conversation: Conversation = {
    async send(request: AgentRequest, onEvent: EventSink) {
      sent.push(request);
      const a = answers.shift() ?? { outcome: "yielded" };
      for (let i = 0; i < (a.events ?? 1); i++) onEvent({ kind: "model_call", input_tokens: 10, output_tokens: 2, cost_usd: 0.5 });
      return { outcome: a.outcome, ...(a.detail ? { detail: a.detail } : {}) };
    },
    async close() {},
  };
  return { conversation, sent };
}

function params(conversation: Conversation, over: Partial<DeliverParams> = {}) {
  const lines: TrajectoryLine[] = [];
  const progress: ProgressEvent[] = [];
  const recorder = new SessionRecorder(
    (l) => lines.push(l),
    (e) => progress.push(e),
    "f.switch",
    schedule.length,
  );
  const p: DeliverParams = {
    conversation,
    schedule,
    repo: "demo",
    focus: "f",
    paths,
    recorder,
    usage: emptyUsage(),
    requestTimeoutMs: 1000,
    maxContinuations: 3,
    signal: new AbortController().signal,
    ...over,
  };
  return { p, lines, progress };
}

describe("deliverSchedule", () => {
  it("delivers every request in order, marks the focus return, and records each line with its progress event", async () => {
    const { conversation, sent } = scripted([]);
    const { p, lines, progress } = params(conversation);
    const d = await deliverSchedule(p);
    expect(sent.map((r) => r.message)).toEqual([
      stageMessage("demo", "/ws/w00", "do one"),
      stageMessage("demo", "/ws/w01", "other"),
      stageMessage("demo", "/ws/w00", "do two"),
      finalizationMessage("demo", "/ws/w00"),
    ]);
    expect(sent.map((r) => r.turn)).toEqual([0, 1, 2, 3]);
    expect(d).toEqual({
      requests: { scheduled: 4, delivered: 4, yielded: 4, timeout: 0, agent_error: 0 },
      timeouts: 0,
      continuations: 0,
      finalized: true,
    });
    for (const l of lines) expect(trajectoryLineSchema.safeParse(l).success).toBe(true);
    const starts = lines.filter((l) => l.type === "request_start");
    expect(starts.map((l) => l.type === "request_start" && l.focus_return)).toEqual([false, false, true, false]);
    expect(starts.map((l) => l.type === "request_start" && l.role)).toEqual(["focus", "interruption", "focus", "focus"]);
    // One progress event per request start and end, with the same index and time as its trajectory line.
    const pStarts = progress.filter((e) => e.type === "request_start");
    expect(pStarts.map((e) => e.type === "request_start" && [e.index, e.time])).toEqual(
      starts.map((l) => l.type === "request_start" && [l.index, l.time]),
    );
    expect(progress.filter((e) => e.type === "request_end")).toHaveLength(4);
    expect(p.usage).toMatchObject({ model_calls: 4, tokens: 48, cost_usd: 2, cost_calls: 4 });
  });

  it("continues a timed-out request with the continuation message, at most maxContinuations per session", async () => {
    const { conversation, sent } = scripted([{ outcome: "timeout" }, { outcome: "timeout" }, { outcome: "timeout" }]);
    const { p } = params(conversation, { maxContinuations: 2 });
    const d = await deliverSchedule(p);
    expect(sent.slice(0, 3).map((r) => [r.index, r.continuation, r.message])).toEqual([
      [0, false, stageMessage("demo", "/ws/w00", "do one")],
      [0, true, continuationMessage("demo", "/ws/w00")],
      [0, true, continuationMessage("demo", "/ws/w00")],
    ]);
    expect(sent[3]!.index).toBe(1);
    expect(d.timeouts).toBe(3);
    expect(d.continuations).toBe(2);
    expect(d.requests).toMatchObject({ delivered: 4, timeout: 3, yielded: 3 });
  });

  it("an agent error moves on (never retried) and warns when the very first request fails without output", async () => {
    const { conversation, sent } = scripted([{ outcome: "agent_error", detail: "boom", events: 0 }]);
    const { p, progress } = params(conversation);
    const d = await deliverSchedule(p);
    expect(sent).toHaveLength(4);
    expect(d.requests.agent_error).toBe(1);
    expect(progress.filter((e) => e.type === "warning").map((e) => e.type === "warning" && e.message)).toEqual([
      "agent failed on its first request without output: boom",
    ]);
  });

  it("a finalization that does not yield leaves the session not finalized", async () => {
    const { conversation } = scripted([
      { outcome: "yielded" },
      { outcome: "yielded" },
      { outcome: "yielded" },
      { outcome: "agent_error", detail: "x" },
    ]);
    const { p } = params(conversation);
    expect((await deliverSchedule(p)).finalized).toBe(false);
  });

  it("an infrastructure fault ends the attempt; an aborted run ends it as interrupted", async () => {
    const { conversation } = scripted([{ outcome: "yielded" }, { outcome: "infra_fault", detail: "no binary" }]);
    await expect(deliverSchedule(params(conversation).p)).rejects.toThrow(InfraFault);
    const stop = new AbortController();
    const { conversation: c2, sent } = scripted([]);
    const aborting: Conversation = { send: async (r, e) => (stop.abort(), c2.send(r, e)), close: async () => {} };
    await expect(deliverSchedule(params(aborting, { signal: stop.signal }).p)).rejects.toThrow(RunInterrupted);
    expect(sent).toHaveLength(1);
  });
});
