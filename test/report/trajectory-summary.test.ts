import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTrajectorySummary, TrajectoryAccumulator } from "../../src/report/trajectory-summary.js";
import type { TrajectoryLine } from "../../src/formats/trajectory.js";
import { tempDir } from "../helpers/temp.js";

const t = "2025-01-01T00:00:00Z";
const start = (attempt = 1): TrajectoryLine => ({
  type: "session_start",
  time: t,
  session: "a.switch",
  pair: "a",
  condition: "switch",
  attempt,
  agent: "x",
});
const req = (index: number, o: Partial<Extract<TrajectoryLine, { type: "request_start" }>>): TrajectoryLine => ({
  type: "request_start",
  time: t,
  index,
  task: "a",
  role: "focus",
  workspace: "w00",
  workspace_path: "/w",
  kind: "stage",
  stage: 1,
  focus_return: false,
  message: "m",
  ...o,
});
const model = (index: number, e: Record<string, unknown>): TrajectoryLine =>
  ({ type: "agent_event", time: t, index, event: { kind: "model_call", input_tokens: 0, output_tokens: 0, ...e } }) as TrajectoryLine;
const end = (index: number, outcome: "yielded" | "timeout" | "agent_error" | "infra_fault" = "yielded"): TrajectoryLine => ({
  type: "request_end",
  time: t,
  index,
  outcome,
  duration_ms: 1,
});

describe("trajectory summary", () => {
  it("counts tokens by tokenTotal: cached input counted, reasoning not twice", () => {
    const acc = new TrajectoryAccumulator();
    acc.add(start());
    acc.add(req(0, {}));
    // reasoning inside output: 100 + 30 + 50 = 180
    acc.add(model(0, { input_tokens: 100, cached_input_tokens: 30, output_tokens: 50, reasoning_tokens: 20, reasoning_in_output: true }));
    // reasoning reported apart: 100 + 30 + 50 + 20 = 200; cache writes counted: +5
    acc.add(model(0, { input_tokens: 100, cached_input_tokens: 30, output_tokens: 50, reasoning_tokens: 20, cache_write_tokens: 5 }));
    acc.add(model(0, { input_tokens: 7, output_tokens: 3, auxiliary: true, cost_usd: 0.5 }));
    acc.add({ type: "agent_event", time: t, index: 0, event: { kind: "tool_call", name: "bash" } });
    acc.add(end(0));
    const s = acc.finish();
    expect(s.usage.tokens).toBe(180 + 205 + 10);
    expect(s.usage.model_calls).toBe(3);
    expect(s.usage.tool_calls).toBe(1);
    expect(s.usage.auxiliary_tokens).toBe(10);
    expect(s.usage.auxiliary_model_calls).toBe(1);
    expect(s.usage.cost_calls).toBe(1);
    expect(s.usage.cost_usd).toBe(0.5);
  });

  it("finds resumed focus stages (not the first focus request, continuations included) and counts outcomes", () => {
    const acc = new TrajectoryAccumulator();
    acc.add(start());
    // the first focus request is never a resumed stage, even when flagged as a return
    acc.add(req(0, { stage: 1, focus_return: true }));
    acc.add(model(0, { input_tokens: 1, output_tokens: 0 }));
    acc.add(end(0));
    acc.add(req(1, { task: "b", role: "interruption", workspace: "w01" }));
    acc.add(model(1, { input_tokens: 1000, output_tokens: 0 }));
    acc.add(end(1, "timeout"));
    acc.add(req(2, { stage: 2, focus_return: true }));
    acc.add(model(2, { input_tokens: 10, output_tokens: 0 }));
    acc.add(end(2, "timeout"));
    acc.add(req(3, { stage: 2, focus_return: false, continuation: true }));
    acc.add(model(3, { input_tokens: 20, output_tokens: 0 }));
    acc.add(end(3, "agent_error"));
    acc.add(req(4, { kind: "finalization", stage: undefined, focus_return: false }));
    acc.add(model(4, { input_tokens: 300, output_tokens: 0 }));
    acc.add(end(4));
    acc.add({ type: "session_end", time: t, status: "finished", finalized: true });
    const s = acc.finish();
    expect([...s.resumed_stages]).toEqual([2]);
    expect(s.focus_stages.get(2)!.tokens).toBe(30);
    expect(s.focus_stages.get(1)!.tokens).toBe(1);
    expect(s.timeouts).toBe(2);
    expect(s.agent_errors).toBe(1);
    expect(s.continuations).toBe(1);
    expect(s.requests_delivered).toBe(5);
    expect(s.ended).toEqual({ status: "finished", finalized: true, reason: null });
  });

  it("keeps the last attempt's usage and counts every attempt's infra faults", () => {
    const acc = new TrajectoryAccumulator();
    acc.add(start(1));
    acc.add(req(0, {}));
    acc.add(model(0, { input_tokens: 999, output_tokens: 0 }));
    acc.add(end(0, "infra_fault"));
    acc.add(start(2));
    acc.add(req(0, {}));
    acc.add(model(0, { input_tokens: 5, output_tokens: 0 }));
    acc.add(end(0));
    const s = acc.finish();
    expect(s.attempts).toBe(2);
    expect(s.infra_faults).toBe(1);
    expect(s.infra_faults_last).toBe(0);
    expect(s.usage.tokens).toBe(5);
    expect(s.ended).toBeNull();
  });

  it("streams a file and counts lines that are not JSON or off-schema", async () => {
    const dir = tempDir("traj-");
    const file = join(dir, "trajectory.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify(start()),
        "{not json",
        JSON.stringify({ type: "mystery" }),
        "",
        JSON.stringify(req(0, {})),
        JSON.stringify(model(0, { input_tokens: 4, output_tokens: 1 })),
        // wrong type: rejected (by the full schema, which names the field)
        JSON.stringify(model(0, { input_tokens: "4", output_tokens: 1 })),
        // an extra field on a call: tolerated
        JSON.stringify(model(0, { input_tokens: 2, output_tokens: 0, provider_extra: true })),
      ].join("\n"),
    );
    const s = await readTrajectorySummary(file);
    expect(s.invalid_lines).toBe(3);
    expect(s.usage.model_calls).toBe(2);
    expect(s.first_invalid).toMatch(/^line 2: not valid JSON/);
    expect(s.usage.tokens).toBe(7);
  });
});
