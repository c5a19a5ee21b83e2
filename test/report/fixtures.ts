import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../../src/formats/trajectory.js";
import type { Condition, Locality, ScheduleStep, SessionPair, SessionsFile, WorkspaceName } from "../../src/formats/sessions.js";
import type { Verdict } from "../../src/formats/verdict.js";

/**
 * A small generator of synthetic run directories with known answers: a dataset (task.json with the
 * F2P test-to-stage map), a sessions file, and a run dir with trajectories, session.json and verdicts.
 */
export type SessionState =
  | "resolved"
  | "tests failed"
  | "did not apply"
  | "not run"
  | "not finalized"
  | "no verdict"
  | "infra fault (verify)"
  | "infra fault (run)"
  /** Every request delivered, the finalization request timed out: finished, not finalized. */
  | "finalization timeout";

export interface SessionSpec {
  state: SessionState;
  /** For "tests failed": stages whose F2P test fails (default: the last stage). */
  failedStages?: number[];
  /** For "tests failed": the P2P test fails too. */
  p2pFails?: boolean;
}

export interface PairSpec {
  locality: Locality;
  base: SessionState | SessionSpec;
  switch: SessionState | SessionSpec;
}

export interface RequestContext {
  condition: Condition;
  index: number;
  step: ScheduleStep;
  role: "focus" | "interruption";
}

export interface FixtureSpec {
  pairs: PairSpec[];
  /** Focus stages per task (default 3). */
  stages?: number;
  /** Focus task id of pair i (default `t00`, `t01`, ...). */
  taskId?: (i: number) => string;
  label?: string;
  agent?: { name: string; options: Record<string, string> };
  /** Agent events of one request (default: usage below). */
  events?: (ctx: RequestContext) => AgentEvent[];
  /** Text of a stage request (default contains markup-like characters to test escaping). */
  text?: (task: string, stage: number) => string;
}

export interface Fixture {
  root: string;
  runDir: string;
  datasetDir: string;
  sessionsPath: string;
  sessions: SessionsFile;
}

/** Default usage: one model call (100 input + 50 cached + 20 output incl. 10 reasoning = 170) and one tool call per request. */
export function defaultEvents(): AgentEvent[] {
  return [
    { kind: "model_call", input_tokens: 100, cached_input_tokens: 50, output_tokens: 20, reasoning_tokens: 10, reasoning_in_output: true },
    { kind: "tool_call", name: "edit", paths: ["src/a.py"] },
  ];
}

export const f2pTest = (task: string, stage: number) => `tests/test_${task}.py::test_stage_${stage}[<a>]`;
export const p2pTest = (task: string) => `tests/test_${task}.py::test_existing`;

const ws = (i: number) => `w0${i}` as WorkspaceName;

function schedules(
  focus: string,
  interruptions: string[],
  stages: number,
  focusWs: number,
): SessionPair["schedules"] & { workspaces: Record<string, string> } {
  const wsOf: Record<string, WorkspaceName> = { [focus]: ws(focusWs) };
  interruptions.forEach((t, j) => (wsOf[t] = ws((focusWs + 1 + j) % 5)));
  const text = (task: string, stage: number) => `Stage ${stage} of ${task}: make <Widget> & "quotes" work`;
  const focusStep = (k: number): ScheduleStep => ({ kind: "stage", task: focus, workspace: wsOf[focus]!, stage: k, text: text(focus, k) });
  const fin: ScheduleStep = { kind: "finalization", task: focus, workspace: wsOf[focus]! };
  const base: ScheduleStep[] = [];
  for (let k = 1; k <= stages; k++) base.push(focusStep(k));
  base.push(fin);
  // switched: F1, I1, F2, I2, F3, ..., then the remaining interruptions, then finalization.
  const sw: ScheduleStep[] = [focusStep(1)];
  let next = 0;
  const interruptionStep = (): ScheduleStep => {
    const t = interruptions[next % 4]!;
    const stage = Math.floor(next / 4) + 1;
    next++;
    return { kind: "stage", task: t, workspace: wsOf[t]!, stage, text: text(t, stage) };
  };
  for (let k = 2; k <= stages; k++) {
    sw.push(interruptionStep());
    sw.push(focusStep(k));
  }
  while (next < 4) sw.push(interruptionStep());
  sw.push(fin);
  const workspaces: Record<string, string> = {};
  for (const [t, w] of Object.entries(wsOf)) workspaces[w] = t;
  return { base, switch: sw, workspaces };
}

function jsonl(lines: unknown[]): string {
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

export function writeRunFixture(root: string, spec: FixtureSpec): Fixture {
  const stages = spec.stages ?? 3;
  const taskId = spec.taskId ?? ((i: number) => `t${String(i).padStart(2, "0")}`);
  const datasetDir = join(root, "dataset");
  const runDir = join(root, "run");
  mkdirSync(join(datasetDir, "repos", "r"), { recursive: true });
  writeFileSync(join(datasetDir, "dataset.json"), JSON.stringify({ name: "fixture", version: "1.0.0", repos: { r: { path: "repos/r" } } }));

  const pairs: SessionPair[] = [];
  spec.pairs.forEach((p, i) => {
    const focus = taskId(i);
    const interruptions = [1, 2, 3, 4].map((j) => `x${i}-${j}`);
    const s = schedules(focus, interruptions, stages, i % 5);
    pairs.push({
      id: focus,
      focus,
      repo: "r",
      locality: p.locality,
      interruptions,
      workspaces: s.workspaces as SessionPair["workspaces"],
      source_files: {},
      schedules: { base: s.base, switch: s.switch },
    });
    const taskDir = join(datasetDir, "tasks", focus);
    mkdirSync(taskDir, { recursive: true });
    const requests = Array.from({ length: stages }, (_, k) => ({ text: `stage ${k + 1}`, tests: [f2pTest(focus, k + 1)] }));
    writeFileSync(
      join(taskDir, "task.json"),
      JSON.stringify({
        id: focus,
        repo: "r",
        base: "HEAD",
        requests,
        verifier: { fail_to_pass: requests.map((_, k) => f2pTest(focus, k + 1)), pass_to_pass: [p2pTest(focus)] },
      }),
    );
    for (let k = 1; k <= stages; k++) writeFileSync(join(taskDir, `stage-${k}.patch`), "");
    writeFileSync(join(taskDir, "tests.patch"), "");
  });
  const sessions: SessionsFile = {
    format: "switch-swe.sessions/1",
    dataset: { name: "fixture", version: "1.0.0" },
    seed: 0,
    pairs,
    excluded: [],
  };
  const sessionsPath = join(root, "sessions.json");
  const sessionsText = JSON.stringify(sessions, null, 2);
  writeFileSync(sessionsPath, sessionsText);

  mkdirSync(runDir, { recursive: true });
  const run: Record<string, unknown> = {
    format: "switch-swe.run/1",
    agent: spec.agent ?? { name: "oracle", options: { forget: "0.5" } },
    dataset: { path: datasetDir, name: "fixture", version: "1.0.0" },
    sessions_file: { path: sessionsPath, sha256: createHash("sha256").update(sessionsText).digest("hex") },
    seed: 0,
    started_at: "2025-01-01T00:00:00Z",
  };
  if (spec.label !== undefined) run.label = spec.label;
  writeFileSync(join(runDir, "run.json"), JSON.stringify(run, null, 2));

  spec.pairs.forEach((p, i) => {
    const pair = pairs[i]!;
    for (const condition of ["base", "switch"] as const) {
      const raw = p[condition];
      const ss: SessionSpec = typeof raw === "string" ? { state: raw } : raw;
      writeSession(runDir, pair, condition, ss, stages, spec.events ?? (() => defaultEvents()));
    }
  });
  return { root, runDir, datasetDir, sessionsPath, sessions };
}

function writeSession(
  runDir: string,
  pair: SessionPair,
  condition: Condition,
  ss: SessionSpec,
  stages: number,
  events: (ctx: RequestContext) => AgentEvent[],
): void {
  if (ss.state === "not run") return;
  const id = `${pair.id}.${condition}`;
  const dir = join(runDir, "sessions", id);
  mkdirSync(dir, { recursive: true });
  const steps = pair.schedules[condition];
  const cutAt = ss.state === "not finalized" || ss.state === "infra fault (run)" ? Math.floor(steps.length / 2) : steps.length;
  const t = "2025-01-01T00:00:00.000Z";
  const lines: unknown[] = [{ type: "session_start", time: t, session: id, pair: pair.id, condition, attempt: 1, agent: "oracle" }];
  let seenFocus = false;
  for (let index = 0; index < cutAt; index++) {
    const step = steps[index]!;
    const role = step.task === pair.focus ? "focus" : "interruption";
    const prev = index > 0 ? steps[index - 1]! : null;
    const focusReturn = role === "focus" && step.kind === "stage" && seenFocus && prev !== null && prev.workspace !== step.workspace;
    if (role === "focus" && step.kind === "stage") seenFocus = true;
    lines.push({
      type: "request_start",
      time: t,
      index,
      task: step.task,
      role,
      workspace: step.workspace,
      workspace_path: `/tmp/ws/${step.workspace}`,
      kind: step.kind,
      ...(step.kind === "stage" ? { stage: step.stage } : {}),
      focus_return: focusReturn,
      message: step.kind === "stage" ? step.text : "finalize",
    });
    for (const event of events({ condition, index, step, role })) lines.push({ type: "agent_event", time: t, index, event });
    const last = index === cutAt - 1;
    lines.push({
      type: "request_end",
      time: t,
      index,
      outcome:
        last && ss.state === "infra fault (run)" ? "infra_fault" : last && ss.state === "finalization timeout" ? "timeout" : "yielded",
      duration_ms: 5,
    });
  }
  if (ss.state === "not finalized") {
    // killed mid-session: no session_end, no session.json
    writeFileSync(join(dir, "trajectory.jsonl"), jsonl(lines));
    return;
  }
  const finalized = ss.state !== "infra fault (run)" && ss.state !== "finalization timeout";
  const aborted = ss.state === "infra fault (run)";
  lines.push({
    type: "session_end",
    time: t,
    status: aborted ? "failed" : "finished",
    finalized,
    ...(aborted ? { reason: "infra_fault: request 3: agent binary vanished" } : {}),
  });
  writeFileSync(join(dir, "trajectory.jsonl"), jsonl(lines));
  const attempts = aborted
    ? [1, 2, 3].map((attempt) => ({ attempt, status: "infra_fault", detail: "agent binary vanished" }))
    : [{ attempt: 1, status: "finished", detail: null }];
  writeFileSync(
    join(dir, "session.json"),
    JSON.stringify({ format: "switch-swe.session/1", status: aborted ? "failed" : "finished", finalized, attempts }),
  );
  if (!finalized) return;
  writeFileSync(join(dir, "artifact.patch"), "diff --git a/x b/x\n");
  if (ss.state === "no verdict") return;

  const f2p = Array.from({ length: stages }, (_, k) => f2pTest(pair.focus, k + 1));
  const tests: Record<string, Verdict["tests"][string]> = {};
  const failed = new Set(ss.state === "tests failed" ? (ss.failedStages ?? [stages]) : []);
  const applied = ss.state !== "did not apply" && ss.state !== "infra fault (verify)";
  f2p.forEach((name, k) => (tests[name] = !applied ? "missing" : failed.has(k + 1) ? "failed" : "passed"));
  tests[p2pTest(pair.focus)] = !applied ? "missing" : ss.p2pFails ? "failed" : "passed";
  const f2pPassed = f2p.filter((n) => tests[n] === "passed").length;
  const verdict: Verdict = {
    format: "switch-swe.verdict/1",
    session: id,
    task: pair.focus,
    artifact_sha256: "0".repeat(64),
    applied,
    apply_method: applied ? "git-apply" : null,
    ...(ss.state === "did not apply" ? { apply_error: "patch does not apply" } : {}),
    dropped_files: [],
    tests,
    fail_to_pass: { passed: f2pPassed, total: f2p.length },
    pass_to_pass: { passed: tests[p2pTest(pair.focus)] === "passed" ? 1 : 0, total: 1 },
    resolved: ss.state === "resolved",
    infra_fault: ss.state === "infra fault (verify)",
    ...(ss.state === "infra fault (verify)" ? { infra_reason: "environment setup failed" } : {}),
    timed_out: false,
    exit_code: applied ? 0 : null,
    result_source: applied ? "junit" : "none",
    setup_cached: true,
    duration_ms: 10,
    attempts: 1,
    log: "verify.log",
    verified_at: "2025-01-01T00:00:00Z",
  };
  writeFileSync(join(dir, "verdict.json"), JSON.stringify(verdict, null, 2));
}

/**
 * The reference fixture of the tests (10 focus tasks, 3 stages each):
 *   pairs 0-4: uninterrupted resolved, switched not (b = 5): switched failures at stages [1], [1,3], [3], [2], not applied
 *   pairs 5-7: both resolved
 *   pair 8: uninterrupted not run, switched not finalized
 *   pair 9: uninterrupted no verdict, switched infra fault at verification
 * near = 0,1,2,5,8; far = 3,4,6,7,9.
 * Switched sessions add one auxiliary model call (10 input + 5 output) per request.
 */
export function referenceSpec(): FixtureSpec {
  const near: Locality = "near";
  const far: Locality = "far";
  return {
    pairs: [
      { locality: near, base: "resolved", switch: { state: "tests failed", failedStages: [1] } },
      { locality: near, base: "resolved", switch: { state: "tests failed", failedStages: [1, 3] } },
      { locality: near, base: "resolved", switch: { state: "tests failed", failedStages: [3] } },
      { locality: far, base: "resolved", switch: { state: "tests failed", failedStages: [2] } },
      { locality: far, base: "resolved", switch: "did not apply" },
      { locality: near, base: "resolved", switch: "resolved" },
      { locality: far, base: "resolved", switch: "resolved" },
      { locality: far, base: "resolved", switch: "resolved" },
      { locality: near, base: "not run", switch: "not finalized" },
      { locality: far, base: "no verdict", switch: "infra fault (verify)" },
    ],
    events: (ctx) => [
      ...defaultEvents(),
      ...(ctx.condition === "switch" ? [{ kind: "model_call", input_tokens: 10, output_tokens: 5, auxiliary: true } as AgentEvent] : []),
    ],
  };
}
