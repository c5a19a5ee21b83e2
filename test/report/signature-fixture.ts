import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FileChange, RequestOutcome } from "../../src/formats/trajectory.js";
import type { Condition, ScheduleStep, SessionPair, SessionsFile, WorkspaceName } from "../../src/formats/sessions.js";
import type { Verdict } from "../../src/formats/verdict.js";

/**
 * A hand-built run with per-request evidence where each trajectory signature is present exactly once,
 * in the switched session of its own focus task (docs/report-format.md, "Signatures"):
 *   p0 clean (resolved) · p1 wrong-workspace edit · p2 contamination · p3 lost requirement ·
 *   p4 reverted work · p5 incomplete execution · p6 submission.
 * Every uninterrupted session is resolved and clean. Focus tasks have 3 stages, interruptions 1.
 */
export const scenarios = ["clean", "wrong-workspace", "contamination", "lost-requirement", "reverted", "incomplete", "submission"] as const;
export type Scenario = (typeof scenarios)[number];

const W: WorkspaceName[] = ["w00", "w01", "w02", "w03", "w04"];
const t0 = "2025-01-01T00:00:00.000Z";

const focusLine = (i: number, k: number) => `    return focus_${i}_value_${k}()`;
const interruptionLine = (t: string) => `    return ${t.replace(/-/g, "_")}_helper_value()`;

function patch(file: string, added: string[]): string {
  return [
    `diff --git a/${file} b/${file}`,
    `--- a/${file}`,
    `+++ b/${file}`,
    `@@ -1,1 +1,${1 + added.length} @@`,
    " def base():",
    ...added.map((l) => `+${l}`),
    "",
  ].join("\n");
}

function writeTask(datasetDir: string, id: string, file: string, lines: string[], tests: string[]): void {
  const dir = join(datasetDir, "tasks", id);
  mkdirSync(dir, { recursive: true });
  const requests = lines.map((_, k) => ({ text: `Stage ${k + 1} of ${id}: implement it`, tests: [tests[k]!] }));
  writeFileSync(
    join(dir, "task.json"),
    JSON.stringify({ id, repo: "r", base: "HEAD", requests, verifier: { fail_to_pass: tests, pass_to_pass: [] } }),
  );
  lines.forEach((l, k) => writeFileSync(join(dir, `stage-${k + 1}.patch`), patch(file, [l])));
  writeFileSync(join(dir, "tests.patch"), "");
}

class Blobs {
  private n = 0;
  next(): string {
    return (++this.n).toString(16).padStart(40, "a");
  }
}

interface SessionPlan {
  steps: ScheduleStep[];
  changes: Array<Partial<Record<WorkspaceName, FileChange[]>>>;
  outcomes: RequestOutcome[];
}

/** The default evidence: every stage request changes one file of its own workspace. */
function plan(i: number, steps: ScheduleStep[], blobs: Blobs): SessionPlan {
  const current = new Map<string, string | null>();
  const changes = steps.map((s) => {
    if (s.kind !== "stage") return {};
    const path = `src/${s.task}.py`;
    const key = `${s.workspace}:${path}`;
    const before = current.get(key) ?? `base${i}`.padEnd(40, "0");
    const after = blobs.next();
    current.set(key, after);
    return { [s.workspace]: [{ path, before, after }] };
  });
  return { steps, changes, outcomes: steps.map(() => "yielded" as RequestOutcome) };
}

/** Applies a scenario to the switched session's plan (indices: F1 I1 F2 I2 F3 I3 I4 FIN). */
function applyScenario(sc: Scenario, i: number, p: SessionPlan, blobs: Blobs): void {
  const focusFile = `src/f${i}.py`;
  if (sc === "wrong-workspace") p.changes[2]!.w01 = [{ path: "src/other.py", before: null, after: blobs.next() }];
  if (sc === "reverted") {
    const original = p.changes[0]!.w00![0]!.before;
    const beforeF3 = p.changes[2]!.w00![0]!.after;
    p.changes[4]!.w00 = [
      { path: focusFile, before: beforeF3, after: original },
      { path: "src/f4b.py", before: null, after: blobs.next() },
    ];
  }
  if (sc === "incomplete") p.outcomes[4] = "timeout";
  if (sc === "submission") {
    const copied = p.changes[1]!.w01![0]!.after;
    p.changes[7]!.w00 = [{ path: "src/copied.py", before: null, after: copied }];
  }
}

function verdictFor(id: string, focus: string, tests: string[], failed: number[]): Verdict {
  const results: Verdict["tests"] = {};
  tests.forEach((t, k) => (results[t] = failed.includes(k + 1) ? "failed" : "passed"));
  const passed = tests.filter((t) => results[t] === "passed").length;
  return {
    format: "switch-swe.verdict/1",
    session: id,
    task: focus,
    artifact_sha256: "0".repeat(64),
    applied: true,
    apply_method: "git-apply",
    dropped_files: [],
    tests: results,
    fail_to_pass: { passed, total: tests.length },
    pass_to_pass: { passed: 0, total: 0 },
    resolved: failed.length === 0,
    infra_fault: false,
    timed_out: false,
    exit_code: 0,
    result_source: "junit",
    setup_cached: true,
    duration_ms: 1,
    attempts: 1,
    log: "verify.log",
    verified_at: t0,
  };
}

function trajectory(id: string, pair: SessionPair, condition: Condition, p: SessionPlan): string {
  const lines: unknown[] = [{ type: "session_start", time: t0, session: id, pair: pair.id, condition, attempt: 1, agent: "hand" }];
  const trees = (k: number) => Object.fromEntries(W.map((w) => [w, { tree: `${k}`.padStart(40, "f") }]));
  lines.push({ type: "workspace_state", time: t0, trees: trees(0), changed: {} });
  p.steps.forEach((s, index) => {
    const role = s.task === pair.focus ? "focus" : "interruption";
    lines.push({
      type: "request_start",
      time: t0,
      index,
      task: s.task,
      role,
      workspace: s.workspace,
      workspace_path: `/w/${s.workspace}`,
      kind: s.kind,
      ...(s.kind === "stage" ? { stage: s.stage } : {}),
      focus_return: false,
      message: "m",
    });
    lines.push({
      type: "agent_event",
      time: t0,
      index,
      event: { kind: "model_call", model: "m-1", input_tokens: 1000, output_tokens: 100, cost_usd: 0.01 },
    });
    // A tool call per request, with text the viewer test looks for (markup in it must stay text); the
    // third request's output is long enough to be folded.
    const output = index === 2 ? `${"long output line\n".repeat(80)}END-OF-OUTPUT <b>${id}</b>` : `ok ${id} #${index}`;
    lines.push({
      type: "agent_event",
      time: t0,
      index,
      event: {
        kind: "tool_call",
        name: "edit_file",
        args: { path: `src/${s.task}.py`, note: `edit for ${id} request ${index} <i>` },
        paths: [`src/${s.task}.py`],
        status: "ok",
        output,
      },
    });
    lines.push({ type: "request_end", time: t0, index, outcome: p.outcomes[index], duration_ms: 1 });
    lines.push({ type: "workspace_state", time: t0, index, trees: trees(index + 1), changed: p.changes[index] });
  });
  lines.push({ type: "session_end", time: t0, status: "finished", finalized: true });
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

export interface SignatureFixture {
  runDir: string;
  datasetDir: string;
}

export function writeSignatureFixture(root: string): SignatureFixture {
  const datasetDir = join(root, "dataset");
  const runDir = join(root, "run");
  mkdirSync(join(datasetDir, "repos", "r"), { recursive: true });
  writeFileSync(join(datasetDir, "dataset.json"), JSON.stringify({ name: "sig", version: "1.0.0", repos: { r: { path: "repos/r" } } }));
  const blobs = new Blobs();
  const pairs: SessionPair[] = [];
  const sessions: Array<{ id: string; pair: SessionPair; condition: Condition; plan: SessionPlan; failed: number[]; artifact: string }> =
    [];
  scenarios.forEach((sc, i) => {
    const focus = `f${i}`;
    const inter = [1, 2, 3, 4].map((j) => `i${i}-${j}`);
    const tests = [1, 2, 3].map((k) => `tests/test_${focus}.py::test_${k}`);
    writeTask(
      datasetDir,
      focus,
      `src/${focus}.py`,
      [1, 2, 3].map((k) => focusLine(i, k)),
      tests,
    );
    for (const t of inter) writeTask(datasetDir, t, `src/${t}.py`, [interruptionLine(t)], [`tests/test_${t}.py::test_1`]);
    const st = (task: string, ws: WorkspaceName, stage: number): ScheduleStep => ({
      kind: "stage",
      task,
      workspace: ws,
      stage,
      text: `Stage ${stage} of ${task}: implement it`,
    });
    const fin: ScheduleStep = { kind: "finalization", task: focus, workspace: "w00" };
    const base = [st(focus, "w00", 1), st(focus, "w00", 2), st(focus, "w00", 3), fin];
    const sw = [
      st(focus, "w00", 1),
      st(inter[0]!, "w01", 1),
      st(focus, "w00", 2),
      st(inter[1]!, "w02", 1),
      st(focus, "w00", 3),
      st(inter[2]!, "w03", 1),
      st(inter[3]!, "w04", 1),
      fin,
    ];
    const pair: SessionPair = {
      id: focus,
      focus,
      repo: "r",
      locality: i % 2 === 0 ? "near" : "far",
      interruptions: inter,
      workspaces: { w00: focus, w01: inter[0]!, w02: inter[1]!, w03: inter[2]!, w04: inter[3]! },
      source_files: {},
      schedules: { base, switch: sw },
    };
    pairs.push(pair);
    const own = patch(
      `src/${focus}.py`,
      [1, 2, 3].map((k) => focusLine(i, k)),
    );
    sessions.push({ id: `${focus}.base`, pair, condition: "base", plan: plan(i, base, blobs), failed: [], artifact: own });
    const swPlan = plan(i, sw, blobs);
    applyScenario(sc, i, swPlan, blobs);
    const failed = sc === "clean" ? [] : sc === "lost-requirement" ? [1] : [3];
    const artifact = sc === "contamination" ? own + patch(`src/${focus}.py`, [interruptionLine(inter[0]!)]) : own;
    sessions.push({ id: `${focus}.switch`, pair, condition: "switch", plan: swPlan, failed, artifact });
  });
  const sessionsFile: SessionsFile = {
    format: "switch-swe.sessions/1",
    dataset: { name: "sig", version: "1.0.0" },
    seed: 0,
    pairs,
    excluded: [],
  };
  const sessionsPath = join(root, "sessions.json");
  const text = JSON.stringify(sessionsFile);
  writeFileSync(sessionsPath, text);
  mkdirSync(runDir, { recursive: true });
  const agent = { name: "hand", options: {}, harness: { name: "hand-harness", version: "1.2.3", model: "m-1", effort: "high" } };
  writeFileSync(
    join(runDir, "run.json"),
    JSON.stringify({
      format: "switch-swe.run/1",
      label: "hand",
      agent,
      dataset: { path: datasetDir, name: "sig", version: "1.0.0" },
      sessions_file: { path: sessionsPath, sha256: createHash("sha256").update(text).digest("hex") },
      seed: 0,
    }),
  );
  for (const s of sessions) {
    const dir = join(runDir, "sessions", s.id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "trajectory.jsonl"), trajectory(s.id, s.pair, s.condition, s.plan));
    writeFileSync(
      join(dir, "session.json"),
      JSON.stringify({
        format: "switch-swe.session/1",
        status: "finished",
        finalized: true,
        attempts: [{ attempt: 1, status: "finished", detail: null }],
      }),
    );
    writeFileSync(join(dir, "artifact.patch"), s.artifact);
    const tests = [1, 2, 3].map((k) => `tests/test_${s.pair.focus}.py::test_${k}`);
    writeFileSync(join(dir, "verdict.json"), JSON.stringify(verdictFor(s.id, s.pair.focus, tests, s.failed)));
  }
  return { runDir, datasetDir };
}
