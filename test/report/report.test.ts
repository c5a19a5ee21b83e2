import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildReport, renderReport, reportSchema, type Report } from "../../src/report/index.js";
import { csvColumns } from "../../src/report/render-csv.js";
import { detectableGap, detectableGapWarning } from "../../src/core/power.js";
import { referenceSpec, writeRunFixture, type Fixture } from "./fixtures.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";

let root: string;
let fx: Fixture;
let report: Report;

beforeAll(async () => {
  root = tempDir("report-test-");
  fx = writeRunFixture(join(root, "ref"), referenceSpec());
  report = await buildReport([fx.runDir]);
});

describe("resolution and statistics (reference fixture, hand-computed)", () => {
  it("is a valid switch-swe.report/2 document", () => {
    expect(reportSchema.safeParse(report).success).toBe(true);
    expect(report.configs).toHaveLength(1);
    expect(report.configs[0]!.label).toBe("oracle forget=0.5"); // run.json has no label
    expect(report.configs[0]!.warnings).toEqual([]);
  });

  it("computes rates, gap, discordant counts and exact McNemar p per group", () => {
    const g = report.configs[0]!.groups;
    expect(g.overall).toMatchObject({ n: 10, uninterrupted: 80, switched: 30, gap: 50, discordant: { base_only: 5, switch_only: 0 } });
    expect(g.overall.mcnemar_p).toBeCloseTo(0.0625, 12);
    expect(g.near).toMatchObject({ n: 5, uninterrupted: 80, switched: 20, gap: 60, discordant: { base_only: 3, switch_only: 0 } });
    expect(g.near.mcnemar_p).toBeCloseTo(0.25, 12);
    expect(g.far).toMatchObject({ n: 5, uninterrupted: 80, switched: 40, gap: 40, discordant: { base_only: 2, switch_only: 0 } });
    expect(g.far.mcnemar_p).toBeCloseTo(0.5, 12);
    for (const r of Object.values(g)) {
      expect(r.ci95![0]).toBeLessThanOrEqual(r.gap!);
      expect(r.ci95![1]).toBeGreaterThanOrEqual(r.gap!);
      expect(r.ci95![0]).toBeGreaterThanOrEqual(0); // no task resolved only when switched
    }
  });

  it("carries the pairs and the smallest gap they detect at the observed discordance, with the warning", () => {
    const p = report.configs[0]!.power;
    expect(p.alpha).toBe(0.05);
    expect(p.power).toBe(0.8);
    // 10 pairs, 5 discordant: even a 50-point gap (every discordant pair one way) has power < 80%.
    expect(p.groups.overall).toEqual({ pairs: 10, discordant_pairs: 5, discordance: 50, assumed: false, min_detectable_gap: null });
    expect(p.groups.near).toEqual({ pairs: 5, discordant_pairs: 3, discordance: 60, assumed: false, min_detectable_gap: null });
    expect(p.warning).toBe(detectableGapWarning(detectableGap(10, 5)));
    expect(p.warning).toMatch(/^10 session pairs detect no gap at all, not the paper's mean gap of 11\.5 points/);
  });

  it("reproduces the bootstrap CI with the same seed and changes it with another", async () => {
    const again = await buildReport([fx.runDir]);
    expect(again.configs[0]!.groups.overall.ci95).toEqual(report.configs[0]!.groups.overall.ci95);
    const a = await buildReport([fx.runDir], { seed: 0, resamples: 40 });
    const b = await buildReport([fx.runDir], { seed: 7, resamples: 40 });
    expect(b.configs[0]!.groups.overall.ci95).not.toEqual(a.configs[0]!.groups.overall.ci95);
    expect(b.bootstrap).toEqual({ seed: 7, resamples: 40, method: "percentile", level: 0.95 });
  });

  it("lists every unresolved session with why, keeping the sessions-file denominator", () => {
    const s = new Map(report.configs[0]!.sessions.map((e) => [e.id, e]));
    expect(report.configs[0]!.sessions).toHaveLength(20);
    expect(s.get("t08.base")).toMatchObject({
      status: "unresolved",
      reason: "not run",
      usage: null,
      files: { trajectory: null, artifact: null },
    });
    expect(s.get("t08.switch")).toMatchObject({
      status: "unresolved",
      reason: "not finalized",
      detail: "the trajectory has no session_end (cut off or still running)",
      finalized: null,
    });
    expect(s.get("t09.base")).toMatchObject({ status: "unresolved", reason: "no verdict", verdict: null });
    expect(s.get("t09.switch")).toMatchObject({ status: "unresolved", reason: "infra fault", detail: "verify: environment setup failed" });
    expect(s.get("t04.switch")).toMatchObject({ reason: "did not apply", detail: "patch does not apply" });
    expect(s.get("t01.switch")).toMatchObject({ reason: "tests failed", detail: "F2P 1/3, P2P 1/1", failed_stages: [1, 3] });
    expect(s.get("t05.switch")).toMatchObject({
      status: "resolved",
      reason: null,
      files: { trajectory: "sessions/t05.switch/trajectory.jsonl", artifact: "sessions/t05.switch/artifact.patch" },
    });
    const tests = s.get("t01.switch")!.verdict!.tests;
    expect(tests.find((t) => t.id === "tests/test_t01.py::test_stage_3[<a>]")).toEqual({
      id: "tests/test_t01.py::test_stage_3[<a>]",
      kind: "F2P",
      stage: 3,
      status: "failed",
    });
    expect(tests.find((t) => t.id === "tests/test_t01.py::test_existing")).toMatchObject({ kind: "P2P", stage: null, status: "passed" });
  });

  it("attributes unresolved artifacts to stages", () => {
    const sa = report.configs[0]!.stage_attribution;
    expect(sa.available).toBe(true);
    expect(sa.groups.overall.switch).toEqual({
      unresolved: 7,
      attributed: 4,
      excluded: { not_scored: 1, infra_fault: 1, not_applied: 1, unmapped: 0 },
      earlier_stage_failure: 3,
      earlier_stage_share: 75,
      last_stage_only: 1,
      p2p_only: 0,
      failed_stages: { "1": 2, "2": 1, "3": 2 },
    });
    expect(sa.groups.overall.base).toMatchObject({ unresolved: 2, attributed: 0, earlier_stage_share: null });
    expect(sa.groups.near.switch).toMatchObject({ attributed: 3, earlier_stage_failure: 2 });
    expect(sa.groups.far.switch).toMatchObject({ attributed: 1, earlier_stage_failure: 1, earlier_stage_share: 100 });
  });

  it("computes workload means, auxiliary calls and ratios", () => {
    const w = report.configs[0]!.workload;
    // uninterrupted: 9 sessions ran, 4 requests × 170 tokens, 1 model call + 1 tool call each
    expect(w.uninterrupted).toMatchObject({ sessions: 9, tokens: 680, model_calls: 4, tool_calls: 4, auxiliary_tokens: 0, cost_usd: null });
    // switched: 10 ran; 9 full (8 requests × (170 + 15)) and one cut after 4 requests
    expect(w.switched.sessions).toBe(10);
    expect(w.switched.tokens).toBeCloseTo((9 * 8 * 185 + 4 * 185) / 10, 9);
    expect(w.switched.model_calls).toBeCloseTo((9 * 16 + 8) / 10, 9);
    expect(w.switched.tool_calls).toBeCloseTo((9 * 8 + 4) / 10, 9);
    expect(w.switched.auxiliary_tokens).toBeCloseTo((9 * 8 * 15 + 4 * 15) / 10, 9);
    expect(w.switched.auxiliary_model_calls).toBeCloseTo(7.6, 9);
    // resumed focus stages = stages 2 and 3; the cut session reached stage 2 only
    expect(w.resumed_focus.tokens).toBeCloseTo((9 * 370 + 185) / 10, 9);
    expect(w.resumed_focus_paired.pairs).toBe(9);
    expect(w.resumed_focus_paired.switched.tokens).toBe(370);
    expect(w.resumed_focus_paired.uninterrupted_same_stages.tokens).toBe(340);
    expect(w.ratios.switched_over_uninterrupted.tokens).toBeCloseTo(1406 / 680, 12);
    expect(w.ratios.resumed_focus_over_uninterrupted_same_stages.tokens).toBeCloseTo(370 / 340, 12);
  });

  it("profiles the schedules and counts errors", () => {
    const c = report.configs[0]!;
    expect(c.profile.overall.base).toMatchObject({
      sessions: 10,
      requests: { median: 4 },
      workspace_switches: { median: 0 },
      focus_returns: { median: 0 },
    });
    expect(c.profile.overall.switch).toMatchObject({
      sessions: 10,
      requests: { median: 8 },
      workspace_switches: { median: 7 },
      focus_returns: { median: 2 },
    });
    expect(c.profile.near.switch.sessions).toBe(5);
    expect(c.errors.base).toMatchObject({
      sessions: 10,
      not_run: 1,
      no_verdict: 1,
      not_finalized: 0,
      not_applied: 0,
      infra_fault_verify: 0,
    });
    expect(c.errors.switch).toMatchObject({
      sessions: 10,
      not_run: 0,
      not_finalized: 1,
      infra_fault_verify: 1,
      not_applied: 1,
      timeouts: 0,
    });
  });
});

describe("formats", () => {
  it("csv: one row per (configuration, group)", () => {
    const lines = renderReport(report, "csv").trimEnd().split("\r\n");
    expect(lines[0]).toBe(csvColumns.join(","));
    expect(lines).toHaveLength(4);
    expect(lines[1]!.split(",").slice(2, 14)).toEqual([
      "overall",
      "10",
      "8",
      "3",
      "80",
      "30",
      "50",
      lines[1]!.split(",")[9],
      lines[1]!.split(",")[10],
      "0.0625",
      "5",
      "0",
    ]);
    expect(lines[2]).toContain(",near,5,");
  });
  it("table and markdown carry the resolution rows and the unscored sessions", () => {
    const table = renderReport(report, "table");
    expect(table).toMatch(/oracle forget=0\.5\s+Overall\s+10\s+80\.0%\s+30\.0%\s+\+50\.0/);
    expect(table).toContain("t08.base");
    expect(table).toContain("not run");
    const md = renderReport(report, "markdown");
    expect(md).toContain("| Configuration | Group | n | Uninterrupted | Switched | Gap (pp) | 95% CI | McNemar p | b/c |");
    expect(md).toMatch(/\| oracle forget=0\.5 \| Overall \| 10 \| 80\.0% \| 30\.0% \| \+50\.0 \| \[.*\] \| 0\.0625 \| 5\/0 \|/);
  });
  it("table, markdown and html show the minimum detectable gap and its warning near the top", () => {
    const table = renderReport(report, "table");
    const at = table.indexOf("Power: the smallest gap the pairs detect");
    expect(at).toBeGreaterThan(table.indexOf("Resolution"));
    expect(at).toBeLessThan(table.indexOf("Failure categories"));
    expect(table).toMatch(/oracle forget=0\.5\s+Overall\s+10\s+5\s+50\.0%\s+–/);
    expect(table.replace(/\s+/g, " ")).toContain(
      "no gap is detectable with these 10 pairs (exact McNemar, α = 0.05, 80% power, 50.0% discordance observed): even a gap of 50.0 points, every disagreeing pair on one side, is found less than 80% of the time.",
    );
    expect(table.replace(/\s+/g, " ")).toContain(`Warning: ${report.configs[0]!.power.warning!}.`);
    const md = renderReport(report, "markdown");
    expect(md).toContain("### Power: the smallest gap the pairs detect");
    expect(md).toContain("| Configuration | Group | Pairs | Discordant | Discordance | Min. detectable gap (pp) |");
    expect(md).toContain(`Warning: ${report.configs[0]!.power.warning!}.`);
    const html = renderReport(report, "html");
    const header = html.slice(html.indexOf("<header>"), html.indexOf("</header>"));
    expect(header).toContain("No gap is detectable with these 10 pairs");
    expect(header).toContain("Warning: 10 session pairs detect no gap at all");
  });
  it("json is the report and html escapes task texts", () => {
    // The same document but for paths: the run directory by its name (the fixture's is "run").
    const json = JSON.parse(renderReport(report, "json")) as Report;
    expect(reportSchema.safeParse(json).success).toBe(true);
    expect({ ...json, configs: [] }).toEqual({ ...report, configs: [] });
    expect(json.configs[0]!.groups).toEqual(report.configs[0]!.groups);
    expect(json.configs[0]!.run_dir).toBe("run");
    const html = renderReport(report, "html", { outFile: join(root, "out", "r.html") });
    expect(html).not.toContain("<Widget>");
    expect(html).not.toMatch(/<a>/);
    expect(html).toContain("\\u003cWidget\\u003e");
  });
});

describe("tolerant reading", () => {
  it("uses the label, warns about a changed sessions file and bad lines, treats an unreadable verdict as no verdict", async () => {
    const f = writeRunFixture(join(root, "tolerant"), {
      label: "my <label>",
      pairs: [
        { locality: "near", base: "resolved", switch: "infra fault (run)" },
        { locality: "far", base: "resolved", switch: "resolved" },
        { locality: "far", base: "finalization timeout", switch: "resolved" },
      ],
    });
    writeFileSync(join(f.runDir, "sessions", "t01.switch", "verdict.json"), "{ half");
    writeFileSync(join(f.runDir, "sessions", "t00.base", "trajectory.jsonl"), "garbage\n", { flag: "a" });
    rmSync(join(f.runDir, "sessions", "t00.base", "session.json"));
    writeFileSync(f.sessionsPath, readFileSync(f.sessionsPath, "utf8") + "\n");
    const r = await buildReport([f.runDir]);
    const c = r.configs[0]!;
    expect(c.label).toBe("my <label>");
    const byId = new Map(c.sessions.map((s) => [s.id, s]));
    expect(byId.get("t00.switch")).toMatchObject({
      reason: "infra fault",
      detail: "run: infra_fault: request 3: agent binary vanished",
      attempts: 3,
    });
    expect(byId.get("t02.base")).toMatchObject({ reason: "not finalized", finalized: false, timeouts: 1 });
    expect(c.errors.switch.restarts).toBe(2);
    expect(c.errors.base.timeouts).toBe(1);
    expect(byId.get("t01.switch")).toMatchObject({ reason: "no verdict" });
    expect(byId.get("t00.base")).toMatchObject({ status: "resolved" });
    expect(c.errors.switch.infra_fault_run).toBe(1);
    expect(c.errors.base.invalid_trajectory_lines).toBe(1);
    expect(c.warnings.join("\n")).toMatch(/sha256 differs/);
    expect(c.warnings.join("\n")).toMatch(/1 line\(s\) skipped/);
    expect(c.warnings.join("\n")).toMatch(/not accepted, counted as no verdict/);
  });

  it("counts what superseded attempts spent, apart from the workload of the scored attempt", async () => {
    const f = writeRunFixture(join(root, "superseded"), { pairs: [{ locality: "near", base: "resolved", switch: "resolved" }] });
    const before = (await buildReport([f.runDir])).configs[0]!;
    expect(before.errors.switch.superseded_tokens).toBe(0);
    // A cut-off first attempt, archived by the run the way a restart does: one model call, with cost.
    const old = join(f.runDir, "sessions", "t00.switch", "attempts", "1");
    mkdirSync(old, { recursive: true });
    const call = {
      kind: "model_call",
      input_tokens: 100,
      cached_input_tokens: 50,
      cache_write_tokens: 5,
      output_tokens: 20,
      reasoning_tokens: 7,
      cost_usd: 0.25,
    };
    writeFileSync(
      join(old, "trajectory.jsonl"),
      `${JSON.stringify({ type: "agent_event", time: "2026-01-01T00:00:00Z", index: 0, event: call })}\n`,
    );
    const after = (await buildReport([f.runDir])).configs[0]!;
    expect(after.errors.switch.superseded_tokens).toBe(100 + 50 + 5 + 20 + 7);
    expect(after.errors.switch.superseded_cost_usd).toBeCloseTo(0.25);
    expect(after.errors.base.superseded_tokens).toBe(0);
    expect(after.errors.base.superseded_cost_usd).toBeNull();
    expect(after.workload).toEqual(before.workload);
  });

  it("reports stage attribution as unavailable when the dataset is gone", async () => {
    const f = writeRunFixture(join(root, "nodata"), { pairs: [{ locality: "near", base: "resolved", switch: "tests failed" }] });
    rmSync(f.datasetDir, { recursive: true });
    const r = await buildReport([f.runDir]);
    expect(r.configs[0]!.stage_attribution.available).toBe(false);
    expect(r.configs[0]!.stage_attribution.note).toMatch(/not readable/);
    expect(r.configs[0]!.groups.overall.gap).toBe(100);
  });

  it("needs a sessions file: from run.json or named by the caller", async () => {
    const f = writeRunFixture(join(root, "nosessions"), { pairs: [{ locality: "far", base: "resolved", switch: "resolved" }] });
    const runJson = join(f.runDir, "run.json");
    const cfg = JSON.parse(readFileSync(runJson, "utf8")) as Record<string, unknown>;
    delete cfg.sessions_file;
    writeFileSync(runJson, JSON.stringify(cfg));
    await expect(buildReport([f.runDir])).rejects.toThrow(/sessions_file: missing/);
    const r = await buildReport([f.runDir], { sessionsPath: f.sessionsPath });
    expect(r.configs[0]!.groups.far).toMatchObject({ n: 1, gap: 0, mcnemar_p: 1 });
  });

  it("rejects a directory that is not a run", async () => {
    await expect(buildReport([join(root, "nowhere")])).rejects.toThrow(/nowhere: not a run directory \(no such directory\)$/);
    await expect(buildReport([fx.datasetDir])).rejects.toThrow(
      /dataset: not a run directory \(no run\.json: a run directory is what `switch-swe run --out` writes\)$/,
    );
  });
});

describe("compare", () => {
  it("puts two configurations side by side with the difference of gaps on common tasks", async () => {
    const b = writeRunFixture(join(root, "b"), {
      label: "B",
      pairs: referenceSpec()
        .pairs.map((p, i) => (i < 3 ? { ...p, switch: "resolved" as const } : p))
        .slice(0, 9),
    });
    // B ran a smaller sessions file: refused unless mixed runs are allowed.
    await expect(buildReport([fx.runDir, b.runDir], { compare: true })).rejects.toThrow(
      /sessions_file\.sha256: this run ran sessions file [0-9a-f]{64}, .* ran [0-9a-f]{64}/,
    );
    const r = await buildReport([fx.runDir, b.runDir], { compare: true, allowMixed: true });
    expect(reportSchema.safeParse(r).success).toBe(true);
    const o = r.comparison!.groups.overall;
    // common tasks t00..t08: A gap = (8 − 3)/9 ... A: base 8 resolved of 9 (t08 not run), switch 3; B: switch 6
    expect(o.n_common).toBe(9);
    expect(o.a.gap).toBeCloseTo(((8 - 3) / 9) * 100, 9);
    expect(o.b.gap).toBeCloseTo(((8 - 6) / 9) * 100, 9);
    expect(o.gap_difference).toBeCloseTo((3 / 9) * 100, 9);
    expect(o.ci95![0]).toBeGreaterThanOrEqual(0);
    expect(r.comparison!.groups.near.n_common).toBe(5);
    await expect(buildReport([fx.runDir], { compare: true })).rejects.toThrow(/exactly two/);
  });
});

describe("CLI", () => {
  it("report --format json and --out with the format from the extension", () => {
    const r = cli(["report", fx.runDir, "--format", "json", "--seed", "3"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Report;
    expect(doc.format).toBe("switch-swe.report/2");
    expect(doc.bootstrap.seed).toBe(3);
    expect(doc.configs[0]!.groups.overall.gap).toBe(50);
    expect(doc.configs[0]!.power.groups.overall).toMatchObject({ pairs: 10, discordant_pairs: 5, min_detectable_gap: null });
    const out = join(root, "cli", "report.md");
    const m = cli(["report", fx.runDir, "--out", out]);
    expect(m.code).toBe(0);
    expect(readFileSync(out, "utf8")).toContain("### Resolution");
    const bad = cli(["report", join(root, "nowhere")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/: not a run directory \(no such directory\)\n$/);
    const cmp = cli(["compare", fx.runDir, fx.runDir, "--format", "csv"]);
    expect(cmp.code).toBe(0);
    expect(cmp.stdout.trimEnd().split("\r\n")).toHaveLength(7);
  });
});
