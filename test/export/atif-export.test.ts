import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync, appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ClaudeCodeParser } from "../../src/agents/claude-code-events.js";
import { packageVersion } from "../../src/core/package-paths.js";
import { atifTrajectorySchema, type AtifTrajectory } from "../../src/formats/atif.js";
import { runFiles } from "../../src/formats/run-layout.js";
import { sessionId } from "../../src/formats/sessions.js";
import { readTrajectory } from "../../src/formats/trajectory-file.js";
import type { AgentEvent } from "../../src/formats/trajectory.js";
import { reportSchema, type Report } from "../../src/report/index.js";
import { interruptionNumber } from "../../src/report/page/interruption-number.js";
import { runSessions } from "../../src/run/runner.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { writeRunFixture } from "../report/fixtures.js";
import { makeRunFixture, type RunFixture } from "../run/fixture.js";
import { skipWithout } from "../helpers/tools.js";

/** Exports a run through the built CLI and reads back every file, checked against the ATIF schema. */
function exportRun(runDir: string): Map<string, AtifTrajectory> {
  const out = join(tempDir(), "atif");
  const r = cli(["export", "atif", runDir, "--out", out]);
  expect(r.stderr).toMatch(/^export: wrote \d+ ATIF-v1\.7 trajectories/);
  expect(r.code).toBe(0);
  const docs = new Map<string, AtifTrajectory>();
  for (const f of readdirSync(out)) {
    const parsed = atifTrajectorySchema.safeParse(JSON.parse(readFileSync(join(out, f), "utf8")));
    expect(parsed.success, `${f}: ${parsed.error?.message}`).toBe(true);
    docs.set(f.replace(/\.json$/, ""), parsed.data!);
  }
  return docs;
}

function reportJson(runDir: string): Report {
  const r = cli(["report", runDir, "--format", "json"]);
  expect(r.code).toBe(0);
  return reportSchema.parse(JSON.parse(r.stdout));
}

/** The export's totals equal the report's, session by session: tokens by the project's rule, calls and cost. */
function expectSumsEqualReport(docs: Map<string, AtifTrajectory>, report: Report): void {
  const sessions = report.configs[0]!.sessions.filter((s) => s.usage !== null);
  expect(sessions.length).toBeGreaterThan(0);
  expect([...docs.keys()].sort()).toEqual(sessions.map((s) => s.id).sort());
  for (const s of sessions) {
    const fm = docs.get(s.id)!.final_metrics!;
    expect(fm.total_prompt_tokens! + fm.total_completion_tokens!, s.id).toBe(s.usage!.tokens);
    expect(fm.extra).toMatchObject({ tokens: s.usage!.tokens, model_calls: s.usage!.model_calls, tool_calls: s.usage!.tool_calls });
    if (s.usage!.cost_usd === null) expect(fm.total_cost_usd).toBeUndefined();
    else expect(fm.total_cost_usd).toBeCloseTo(s.usage!.cost_usd, 9);
  }
}

type Request = { index: number; role: string; interruption?: number; task: string; workspace: string };
const requestOf = (step: AtifTrajectory["steps"][number]) => (step.extra?.switch_swe as { request?: Request | null } | undefined)?.request;

// Runs the harness with its default sandbox: skipped with the reason where bwrap is missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");
describe.skipIf(missingTool)("export atif of an oracle run (real run on a generated dataset)", () => {
  let fx: RunFixture;
  let runDir: string;
  let docs: Map<string, AtifTrajectory>;

  beforeAll(async () => {
    fx = makeRunFixture(1);
    runDir = join(fx.root, "run-oracle");
    const outcome = await runSessions({
      out: runDir,
      resume: false,
      dataset: fx.datasetDir,
      sessions: fx.sessionsPath,
      agent: "oracle",
      agentOptions: {},
      seed: 0,
      concurrency: 2,
      keepWorkspaces: false,
      verify: false,
      progress: () => {},
    });
    expect(outcome.failed).toEqual([]);
    docs = exportRun(runDir);
  }, 300_000);

  it("writes one valid ATIF-v1.7 document per session whose token sums equal the report's", () => {
    expect(docs.size).toBe(2);
    for (const d of docs.values()) {
      expect(d.schema_version).toBe("ATIF-v1.7");
      expect(d.agent).toMatchObject({ name: "oracle", version: packageVersion, model_name: "oracle" });
    }
    expectSumsEqualReport(docs, reportJson(runDir));
  });

  it("gives the switched session's requests in schedule order, each step marked with its request, workspace and role", () => {
    const pair = fx.sessions.pairs[0]!;
    const s = sessionId(pair.id, "switch");
    const doc = docs.get(s)!;
    const schedule = pair.schedules.switch;
    const users = doc.steps.filter((x) => x.source === "user");
    const sent = readTrajectory(runFiles.trajectory(runDir, s)).flatMap((l) => (l.type === "request_start" ? [l.message] : []));
    expect(users.map((u) => u.message)).toEqual(sent);
    expect(users.map((u) => requestOf(u)!.task)).toEqual(schedule.map((x) => x.task));
    expect(users.map((u) => requestOf(u)!.workspace)).toEqual(schedule.map((x) => x.workspace));
    // The four interruption tasks are numbered 1..4 by first appearance; the focus carries no number.
    const numbers = new Map(
      users.filter((u) => requestOf(u)!.role === "interruption").map((u) => [requestOf(u)!.task, requestOf(u)!.interruption]),
    );
    expect([...numbers.values()].sort()).toEqual([1, 2, 3, 4]);
    expect(users.filter((u) => requestOf(u)!.role === "focus").every((u) => requestOf(u)!.interruption === undefined)).toBe(true);
    // Every step from the first request on belongs to a request; the agent's steps to the request just sent.
    const first = doc.steps.findIndex((x) => x.source === "user");
    let current = -1;
    for (const step of doc.steps.slice(first)) {
      if (step.source === "user") current = requestOf(step)!.index;
      if (step.source === "agent") expect(requestOf(step)!.index).toBe(current);
      if ((step.extra!.switch_swe as { line?: string }).line === "session_end") continue;
      expect(requestOf(step), JSON.stringify(step)).toBeTruthy();
    }
    // The oracle's patch applications are tool calls with the files as arguments' paths and an observation.
    const tools = doc.steps.flatMap((x) => x.tool_calls ?? []);
    expect(tools.length).toBe(schedule.filter((x) => x.kind === "stage").length);
    expect(tools.every((t) => t.function_name === "apply_patch" && Array.isArray(t.extra?.paths))).toBe(true);
    expect((doc.extra!.switch_swe as { requests: Request[] }).requests.map((r) => r.task)).toEqual(schedule.map((x) => x.task));
  });
});

/** A recorded claude-code stream (test/agents/fixtures, from the pinned CLI against the mock model), parsed by the adapter. */
function recordedClaudeEvents(): AgentEvent[][] {
  const lines = readFileSync(join(__dirname, "..", "agents", "fixtures", "claude-stream.jsonl"), "utf8")
    .trim()
    .split("\n");
  const invocations: string[][] = [[]];
  for (const l of lines) {
    invocations.at(-1)!.push(l);
    if (l.includes('"type":"result"')) invocations.push([]);
  }
  let cost = 0;
  return invocations
    .filter((x) => x.length > 0)
    .map((inv) => {
      const parser = new ClaudeCodeParser(cost, (after) => (cost = after));
      const events: AgentEvent[] = [];
      for (const l of inv) parser.line(l, (e) => events.push(e));
      parser.end((e) => events.push(e));
      return events;
    });
}

describe("export atif of a CLI agent's run (recorded claude-code events)", () => {
  it("exports its model calls with metrics and cost, and its tool calls with arguments and observations", () => {
    const recorded = recordedClaudeEvents();
    expect(recorded.length).toBe(2);
    const harness = { name: "claude-code", package: "@anthropic-ai/claude-code", version: "2.0.0", model: "claude-x", effort: null };
    const fx = writeRunFixture(tempDir(), {
      pairs: [{ locality: "near", base: "resolved", switch: "tests failed" }],
      agent: { name: "claude-code", options: {}, harness } as unknown as { name: string; options: Record<string, string> },
      events: ({ index }) => recorded[index % 2]!,
    });
    const docs = exportRun(fx.runDir);
    expectSumsEqualReport(docs, reportJson(fx.runDir));
    const doc = docs.get("t00.switch")!;
    expect(doc.agent).toMatchObject({ name: "claude-code", version: "2.0.0", model_name: "claude-x" });
    const withTools = doc.steps.filter((s) => s.tool_calls?.length);
    expect(withTools.length).toBeGreaterThan(0);
    const write = withTools[0]!;
    expect(write.source).toBe("agent");
    expect(write.tool_calls![0]).toMatchObject({ function_name: "Write", arguments: { file_path: expect.stringMatching(/a\.txt$/) } });
    expect(write.observation!.results[0]!.source_call_id).toBe(write.tool_calls![0]!.tool_call_id);
    expect(write.observation!.results[0]!.extra).toMatchObject({ status: "completed" });
    const calls = doc.steps.filter((s) => s.metrics);
    expect(calls.every((s) => s.llm_call_count === 1 && s.source === "agent")).toBe(true);
    expect(calls.some((s) => (s.metrics!.cached_tokens ?? 0) > 0)).toBe(true);
    expect(doc.final_metrics!.total_cost_usd).toBeGreaterThan(0);
  });

  it("counts every token once, as the report does: cache writes, reasoning reported apart, a context manager's calls", () => {
    const events = (): AgentEvent[] => [
      { kind: "text", text: "Looking first." },
      {
        kind: "model_call",
        model: "m",
        input_tokens: 100,
        cached_input_tokens: 50,
        cache_write_tokens: 30,
        output_tokens: 20,
        reasoning_tokens: 7,
        reasoning_in_output: false,
        cost_usd: 0.002,
      },
      { kind: "model_call", model: "aux", input_tokens: 10, output_tokens: 5, auxiliary: true, cost_usd: 0.001 },
      { kind: "tool_call", name: "bash", args: "ls", status: "ok", output: "a.py" },
      { kind: "error", message: "rate limited" },
    ];
    const fx = writeRunFixture(tempDir(), {
      pairs: [{ locality: "near", base: "resolved", switch: "resolved" }],
      agent: { name: "command", options: {} },
      events,
    });
    const docs = exportRun(fx.runDir);
    expectSumsEqualReport(docs, reportJson(fx.runDir));
    const steps = docs.get("t00.base")!.steps.filter((s) => requestOf(s)?.index === 0 && s.source === "agent");
    expect(steps.map((s) => [s.message, s.metrics?.prompt_tokens, s.metrics?.completion_tokens, s.tool_calls?.[0]?.arguments])).toEqual([
      ["Looking first.", undefined, undefined, undefined],
      ["", 180, 27, undefined],
      ["", 10, 5, undefined],
      ["", undefined, undefined, { value: "ls" }],
      ["rate limited", undefined, undefined, undefined],
    ]);
    expect(steps[2]!.extra!.switch_swe).toMatchObject({ auxiliary: true });
    expect(steps[3]!.observation!.results[0]).toMatchObject({ content: "a.py", extra: { status: "ok" } });
  });

  it("exports a run that made no model call (nop) from its requests and the harness's actions", () => {
    const fx = writeRunFixture(tempDir(), {
      pairs: [{ locality: "far", base: "resolved", switch: "resolved" }],
      agent: { name: "nop", options: {} },
      events: () => [],
    });
    const docs = exportRun(fx.runDir);
    const doc = docs.get("t00.switch")!;
    expect(doc.agent).toMatchObject({ name: "nop", version: "unknown" });
    expect(new Set(doc.steps.map((s) => s.source))).toEqual(new Set(["system", "user"]));
    expect(doc.final_metrics).toMatchObject({ total_prompt_tokens: 0, total_completion_tokens: 0, total_steps: doc.steps.length });
    expectSumsEqualReport(docs, reportJson(fx.runDir));
  });
});

describe("export atif documents that can be shared", () => {
  type Extra = {
    run: Record<string, unknown>;
    verdict: { outcome: string; resolved: boolean; fail_to_pass: { passed: number; total: number }; seal: string | null } | null;
  };
  const extraOf = (d: AtifTrajectory) => d.extra!.switch_swe as Extra;

  it("gives two runs of the same sessions distinct trajectory ids, names no absolute path, and carries each verdict", () => {
    const root = tempDir();
    const fx = writeRunFixture(join(root, "machine-layout"), {
      pairs: [
        { locality: "near", base: "resolved", switch: "did not apply" },
        { locality: "far", base: "no verdict", switch: { state: "tests failed", failedStages: [1] } },
      ],
    });
    // A second run of the same sessions file: its run.json differs (another label), as two runs' do.
    const second = join(fx.root, "run-2");
    cpSync(fx.runDir, second, { recursive: true });
    const config = JSON.parse(readFileSync(join(second, "run.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(second, "run.json"), JSON.stringify({ ...config, label: "again" }));
    const a = exportRun(fx.runDir);
    const b = exportRun(second);
    const ids = [...a.values(), ...b.values()].map((d) => d.trajectory_id);
    expect(ids).toHaveLength(8);
    expect(new Set(ids).size).toBe(8);
    expect(a.get("t00.base")!.trajectory_id).toMatch(/^run-[0-9a-f]{12}\/t00\.base$/);
    for (const d of [...a.values(), ...b.values()]) {
      const text = JSON.stringify(d);
      expect(text).not.toContain(root);
      expect(text).not.toContain("machine-layout");
    }
    expect(extraOf(a.get("t00.base")!).run).toMatchObject({ dir: "run" });
    expect(extraOf(a.get("t00.base")!).verdict).toMatchObject({
      outcome: "resolved",
      resolved: true,
      fail_to_pass: { passed: 3, total: 3 },
    });
    expect(extraOf(a.get("t00.switch")!).verdict).toMatchObject({ outcome: "did not apply", resolved: false });
    expect(extraOf(a.get("t01.switch")!).verdict).toMatchObject({
      outcome: "tests failed",
      resolved: false,
      fail_to_pass: { passed: 2, total: 3 },
    });
    expect(extraOf(a.get("t01.base")!).verdict).toBeNull();
  });

  it("numbers interruptions as the report page does, and says the oracle's version and model as the report does", () => {
    const fx = writeRunFixture(tempDir(), {
      pairs: [{ locality: "far", base: "resolved", switch: "resolved" }],
      agent: { name: "oracle", options: {} },
    });
    const config = JSON.parse(readFileSync(join(fx.runDir, "run.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(fx.runDir, "run.json"), JSON.stringify({ ...config, switch_swe_version: "9.8.7" }));
    const doc = exportRun(fx.runDir).get("t00.switch")!;
    const report = reportJson(fx.runDir);
    const entry = report.configs[0]!.sessions.find((s) => s.id === "t00.switch")!;
    // The page numbers an interruption by first appearance in the schedule: the export the same.
    const firstSeen = [...new Set(entry.schedule.filter((x) => x.role === "interruption").map((x) => x.task))];
    for (const u of doc.steps.filter((x) => x.source === "user" && requestOf(x)!.role === "interruption")) {
      expect(requestOf(u)!.interruption, requestOf(u)!.task).toBe(firstSeen.indexOf(requestOf(u)!.task) + 1);
    }
    expect(interruptionNumber(entry.schedule, firstSeen[1]!)).toBe(2); // what the page's request timeline prints
    expect(doc.agent).toMatchObject({ name: "oracle", version: "9.8.7", model_name: "oracle" });
    expect(report.configs[0]!.harness).toEqual({ name: "switch-swe", version: "9.8.7", model: "oracle", effort: null });
    const table = cli(["report", fx.runDir]).stdout;
    expect(table).toMatch(/\noracle\s+oracle\s+switch-swe\s+9\.8\.7\s+oracle\s+none\n/);
  });
});

describe("export atif refuses bad input in one line, exit 2, writing nothing", () => {
  it("no --out: a usage error", () => {
    const r = cli(["export", "atif", tempDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      "switch-swe export atif: required option '--out <dir>' not specified (see switch-swe export atif --help)",
    ]);
  });

  it("a directory that is not a run", () => {
    const dir = tempDir();
    const out = join(dir, "out");
    const r = cli(["export", "atif", dir, "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      `${dir}: not a run directory (no run.json: a run directory is what \`switch-swe run --out\` writes)`,
    ]);
    expect(existsSync(out)).toBe(false);
  });

  it("a trajectory line that does not parse names the file, line and field", () => {
    const fx = writeRunFixture(tempDir(), { pairs: [{ locality: "near", base: "resolved", switch: "resolved" }] });
    const file = runFiles.trajectory(fx.runDir, "t00.switch");
    const lines = readFileSync(file, "utf8").split("\n");
    const k = lines.findIndex((l) => l.includes('"model_call"'));
    lines[k] = lines[k]!.replace(/"input_tokens":\d+/, '"input_tokens":"many"');
    writeFileSync(file, lines.join("\n"));
    const out = join(fx.root, "out");
    const r = cli(["export", "atif", fx.runDir, "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^${file.replace(/[.]/g, "\\.")}: line ${k + 1}: event\\.input_tokens: .+`));
    expect(existsSync(out)).toBe(false);
  });

  it("a last line cut short by a crash is dropped, as every reader does; bad JSON elsewhere is refused", () => {
    const fx = writeRunFixture(tempDir(), { pairs: [{ locality: "near", base: "resolved", switch: "resolved" }] });
    const file = runFiles.trajectory(fx.runDir, "t00.base");
    appendFileSync(file, '{"type":"request_st');
    expect(exportRun(fx.runDir).size).toBe(2);
    appendFileSync(file, "\n");
    const r = cli(["export", "atif", fx.runDir, "--out", join(fx.root, "out2")]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/trajectory\.jsonl: line \d+: not valid JSON/);
  });

  it("a session directory without a trajectory is skipped and named", () => {
    const fx = writeRunFixture(tempDir(), { pairs: [{ locality: "near", base: "resolved", switch: "resolved" }] });
    mkdirSync(join(fx.runDir, "sessions", "t09.base"));
    const r = cli(["export", "atif", fx.runDir, "--out", join(fx.root, "out")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("1 session(s) without a trajectory: t09.base");
  });
});
