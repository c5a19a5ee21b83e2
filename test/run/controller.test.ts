import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runFiles } from "../../src/formats/run-layout.js";
import { Ledger } from "../../src/run/ledger.js";
import { continuationText } from "../../src/run/message-templates.js";
import type { ProgressEvent } from "../../src/run/progress-events.js";
import { runSessions } from "../../src/run/runner.js";
import type { RunOptions } from "../../src/run/run-options.js";
import { sessionSummarySchema } from "../../src/formats/session-summary.js";
import { readTrajectory } from "../../src/formats/trajectory-file.js";
import { tokenTotal } from "../../src/formats/trajectory.js";
import { sessionId } from "../../src/formats/sessions.js";
import { makeRunFixture, type RunFixture } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

let fx: RunFixture;
let n = 0;

async function run(command: string, over: Partial<RunOptions> = {}) {
  const events: ProgressEvent[] = [];
  const out = join(fx.root, `run-${n++}`);
  const outcome = await runSessions({
    out,
    resume: false,
    dataset: fx.datasetDir,
    sessions: fx.sessionsPath,
    agent: "command",
    agentOptions: { command },
    sessionIds: [sessionId(fx.sessions.pairs[0]!.id, "base")],
    concurrency: 1,
    keepWorkspaces: false,
    verify: false,
    progress: (e) => events.push(e),
    ...over,
  });
  const session = outcome.finished[0] ?? outcome.failed[0]!;
  const summary = sessionSummarySchema.parse(JSON.parse(readFileSync(runFiles.summary(out, session), "utf8")));
  return { out, outcome, events, session, summary, lines: readTrajectory(runFiles.trajectory(out, session)) };
}

beforeAll(() => {
  fx = makeRunFixture(1);
});

describe.skipIf(missingTool)("the controller", () => {
  it("sends a continuation of the same request after a timeout, at most three per session, then moves on", async () => {
    const { summary, lines, outcome } = await run("sleep 20", { requestTimeoutS: 0.3 });
    const schedule = fx.sessions.pairs[0]!.schedules.base;
    expect(outcome.finished).toHaveLength(1);
    const starts = lines.filter((l) => l.type === "request_start");
    expect(starts).toHaveLength(schedule.length + 3);
    // The first request is re-sent three times, with the continuation text; then every request once.
    expect(starts.slice(0, 4).map((l) => [l.index, l.continuation ?? false])).toEqual([
      [0, false],
      [0, true],
      [0, true],
      [0, true],
    ]);
    expect(starts[1]!.message.endsWith(`\n\n${continuationText}`)).toBe(true);
    expect(starts[1]!.message.startsWith(`Repository: demo\nWorkspace: ${starts[0]!.workspace_path}\n\n`)).toBe(true);
    expect(starts.slice(4).map((l) => l.index)).toEqual(schedule.slice(1).map((_, i) => i + 1));
    expect(lines.filter((l) => l.type === "request_end").every((l) => l.outcome === "timeout")).toBe(true);
    expect(summary).toMatchObject({ status: "finished", finalized: false, timeouts: schedule.length + 3, continuations: 3 });
    expect(summary.requests).toMatchObject({ delivered: schedule.length, timeout: schedule.length + 3, yielded: 0 });
  });

  it("records agent errors and goes on to the next request, never retrying them", async () => {
    const { summary, events, out, session } = await run("echo broken >&2; exit 4");
    const schedule = fx.sessions.pairs[0]!.schedules.base;
    expect(summary).toMatchObject({ status: "finished", finalized: false, attempt: 1 });
    expect(summary.requests).toMatchObject({ delivered: schedule.length, agent_error: schedule.length });
    const warning = events.find((e) => e.type === "warning");
    expect(warning).toMatchObject({
      session,
      message: "agent failed on its first request without output: exited at once, no output; exit 4: broken",
    });
    const ledger = Ledger.openReadonly(runFiles.ledger(out));
    expect(ledger.attempts().map((r) => r.status)).toEqual(["finished"]);
    ledger.close();
  });

  it("restarts a session hit by an infrastructure fault twice, records each attempt, then marks it failed", async () => {
    const { summary, outcome, out, session, events } = await run("env /no/such/agent-binary");
    expect(outcome).toMatchObject({ finished: [], failed: [session] });
    const ledger = Ledger.openReadonly(runFiles.ledger(out));
    expect(ledger.attempts(session).map((r) => [r.attempt, r.status])).toEqual([
      [1, "infra_fault"],
      [2, "infra_fault"],
      [3, "infra_fault"],
    ]);
    expect(ledger.attempts(session)[0]!.detail).toMatch(/^request 0: command cannot start \(exit 127\)/);
    ledger.close();
    expect(summary).toMatchObject({ status: "failed", attempt: 3, artifact: null });
    expect(summary.reason).toMatch(/^infra_fault: /);
    expect(summary.attempts.map((a) => a.status)).toEqual(["infra_fault", "infra_fault", "infra_fault"]);
    // Earlier attempts' trajectories are kept; the current one is the third.
    for (const a of [1, 2])
      expect(readTrajectory(join(runFiles.sessionDir(out, session), "attempts", String(a), "trajectory.jsonl"))[0]).toMatchObject({
        attempt: a,
      });
    expect(readTrajectory(runFiles.trajectory(out, session))[0]).toMatchObject({ attempt: 3 });
    expect(existsSync(runFiles.artifact(out, session))).toBe(false);
    expect(events.filter((e) => e.type === "session_end").map((e) => (e.type === "session_end" ? e.retry : null))).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("saves what the agent wrote as the artifact and totals its usage by the token rule", async () => {
    const cmd = [
      `echo "line $SWITCH_SWE_REQUEST_INDEX" >> agent_notes.py`,
      `echo '{"kind":"model_call","input_tokens":100,"output_tokens":50,"cached_input_tokens":1000,"reasoning_tokens":20,"cost_usd":0.5}'`,
      `echo '{"kind":"model_call","input_tokens":10,"output_tokens":30,"reasoning_tokens":20,"reasoning_in_output":true,"auxiliary":true}'`,
      `echo '{"kind":"tool_call","name":"write","paths":["agent_notes.py"]}'`,
      `mkdir -p __pycache__ && echo x > __pycache__/c.pyc && echo log > agent.log`,
    ].join("\n");
    const { summary, out, session, lines } = await run(cmd);
    const k = fx.sessions.pairs[0]!.schedules.base.length;
    expect(summary.usage).toEqual({
      tokens: k * (1170 + 40),
      input_tokens: k * 110,
      cached_input_tokens: k * 1000,
      cache_write_tokens: 0,
      output_tokens: k * 80,
      reasoning_tokens: k * 40,
      model_calls: 2 * k,
      auxiliary_model_calls: k,
      tool_calls: k,
      cost_usd: k * 0.5,
    });
    const events = lines.flatMap((l) => (l.type === "agent_event" && l.event.kind === "model_call" ? [l.event] : []));
    expect(events.reduce((t, e) => t + tokenTotal(e), 0)).toBe(summary.usage.tokens);
    const artifact = readFileSync(runFiles.artifact(out, session), "utf8");
    expect(artifact).toContain("+++ b/agent_notes.py");
    for (let i = 0; i < k; i++) expect(artifact).toContain(`+line ${i}\n`);
    expect(artifact).not.toContain("__pycache__");
    expect(artifact).not.toContain("agent.log");
    expect(summary.artifact).toMatchObject({ path: "artifact.patch", files: ["agent_notes.py"] });
    expect(Object.keys(summary.workspaces)).toHaveLength(4);
    expect(summary.finalized).toBe(true);
  });

  it("a workspace the agent deleted gives no artifact (scored as the agent's failure), not an infrastructure retry", async () => {
    const last = fx.sessions.pairs[0]!.schedules.base.length - 1;
    // Copies: a copy-on-write workspace is a mount point, which an agent can empty but not remove (next test).
    process.env.SWITCH_SWE_WORKSPACES = "copy";
    const { summary, out, session, events } = await run(
      `echo x > f.py; if [ "$SWITCH_SWE_REQUEST_INDEX" = ${last} ]; then cd / && rm -rf "$SWITCH_SWE_WORKSPACE"; fi`,
      { sandbox: "none" },
    ).finally(() => delete process.env.SWITCH_SWE_WORKSPACES);
    expect(summary).toMatchObject({ status: "finished", attempt: 1, artifact: null });
    expect(Object.values(summary.damaged_workspaces ?? {})).toEqual(["the workspace was deleted"]);
    expect(existsSync(runFiles.artifact(out, session))).toBe(false);
    expect(events.some((e) => e.type === "warning" && /^no patch for w0\d: /.test(e.message))).toBe(true);
  });

  it("a copy-on-write workspace the agent emptied (its mount point stays) gives an artifact that deletes every file, its base untouched", async () => {
    const last = fx.sessions.pairs[0]!.schedules.base.length - 1;
    const { summary, out, session } = await run(
      `echo x > f.py; if [ "$SWITCH_SWE_REQUEST_INDEX" = ${last} ]; then rm -rf "$SWITCH_SWE_WORKSPACE" 2>/dev/null; true; fi`,
      { sandbox: "none" },
    );
    if (readFileSync(join(runFiles.sessionDir(out, session), "attempts", "1", "workspaces.log"), "utf8").includes("copy")) return; // no overlays on this machine
    const patch = readFileSync(runFiles.artifact(out, session), "utf8");
    expect(summary.artifact?.files.length).toBeGreaterThan(1);
    expect(patch.match(/^deleted file mode /gm)?.length).toBe(summary.artifact!.files.length);
    // A second run at the same bases finds the shared base checkouts whole.
    const again = await run(`echo x > f.py`, { sandbox: "none" });
    expect(again.summary.artifact?.files).toEqual(["f.py"]);
  });

  it("a workspace whose .git the agent deleted is still collected: the harness never reads the agent's git", async () => {
    const last = fx.sessions.pairs[0]!.schedules.base.length - 1;
    const { summary } = await run(`echo x > f.py; if [ "$SWITCH_SWE_REQUEST_INDEX" = ${last} ]; then rm -rf .git; fi`);
    expect(summary).toMatchObject({ status: "finished", attempt: 1, artifact: { files: ["f.py"] } });
    expect(summary.damaged_workspaces).toBeUndefined();
  });
});
