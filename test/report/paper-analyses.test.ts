import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildReport, renderReport, reportSchema, type Report } from "../../src/report/index.js";
import { interruptionReuse, objectiveOf } from "../../src/report/analyses.js";
import type { AgentEvent } from "../../src/formats/trajectory.js";
import { defaultEvents, referenceSpec, writeRunFixture } from "./fixtures.js";
import { tempDir } from "../helpers/temp.js";

// The reference fixture (fixtures.ts): near gap 80 − 20 = 60 points over 5 pairs, far gap 80 − 40 = 40 over 5;
// every request one 170-token call (150 of it input), switched requests one auxiliary call more (15 tokens).
let report: Report;
let contextReport: Report;

beforeAll(async () => {
  const root = tempDir("report-paper-");
  report = await buildReport([writeRunFixture(join(root, "ref"), referenceSpec()).runDir], { resamples: 500 });
  // Focus context by pair: small contexts resolve, large ones do not (both conditions), so the bins differ.
  const big = new Set(["t02", "t03"]);
  const events = (ctx: { step: { task: string }; role: string }): AgentEvent[] =>
    ctx.role === "focus" && big.has(ctx.step.task)
      ? [{ kind: "model_call", input_tokens: 30_000, cached_input_tokens: 40_000, cache_write_tokens: 5_000, output_tokens: 10 }]
      : ctx.role === "interruption"
        ? [{ kind: "model_call", input_tokens: 900_000, output_tokens: 10 }] // interruptions do not count
        : defaultEvents();
  contextReport = await buildReport(
    [
      writeRunFixture(join(root, "ctx"), {
        pairs: [
          { locality: "near", base: "resolved", switch: "resolved" },
          { locality: "near", base: "resolved", switch: "resolved" },
          { locality: "far", base: { state: "tests failed" }, switch: { state: "tests failed" } },
          { locality: "far", base: "resolved", switch: { state: "tests failed" } },
        ],
        events,
      }).runDir,
    ],
    { resamples: 200 },
  );
});

describe("far − near", () => {
  it("is the far gap minus the near gap, with a bootstrap interval around it", () => {
    const d = report.configs[0]!.far_minus_near;
    expect(d.near).toEqual({ pairs: 5, gap: 60 });
    expect(d.far).toEqual({ pairs: 5, gap: 40 });
    expect(d.difference).toBeCloseTo(-20, 9);
    const [lo, hi] = d.ci95!;
    expect(lo).toBeLessThan(-20);
    expect(hi).toBeGreaterThan(-20);
    // Far and near resampled apart: the interval of a difference of two five-task gaps is wide.
    expect(hi - lo).toBeGreaterThan(60);
  });
});

describe("the resumed focus stages against the whole uninterrupted session", () => {
  it("is the mean tokens of stages 2 and 3 resumed over the whole uninterrupted session, over pairs where both ran", () => {
    const r = report.configs[0]!.resumed_focus_token_ratio;
    // 9 pairs ran both sessions (pair 8's uninterrupted session never ran); resumed: 2 × (170 + 15), whole: 4 × 170.
    expect(r).toMatchObject({ pairs: 9, resumed_focus_tokens: 370, uninterrupted_tokens: 680 });
    expect(r.ratio).toBeCloseTo(370 / 680, 12);
    expect(r.ci95![0]).toBeCloseTo(370 / 680, 12);
    expect(r.ci95![1]).toBeCloseTo(370 / 680, 12);
  });
});

describe("resolution by focus context size", () => {
  it("bins each session by its largest focus model call, interruptions and auxiliary calls left out", () => {
    const { bins, unmeasured } = contextReport.configs[0]!.resolution_by_context;
    expect(bins.map((b) => [b.from, b.to])).toEqual([
      [0, 20_000],
      [20_000, 50_000],
      [50_000, 100_000],
      [100_000, null],
    ]);
    // t00, t01 at 150 tokens: resolved in both conditions.
    expect(bins[0]).toMatchObject({ base: { sessions: 2, resolved: 2, rate: 100 }, switch: { sessions: 2, resolved: 2, rate: 100 } });
    // t02, t03 at 75,000 tokens: t03 resolved uninterrupted only.
    expect(bins[2]).toMatchObject({ base: { sessions: 2, resolved: 1, rate: 50 }, switch: { sessions: 2, resolved: 0, rate: 0 } });
    expect(bins[1]!.base.sessions + bins[3]!.base.sessions + bins[1]!.switch.sessions + bins[3]!.switch.sessions).toBe(0);
    expect(unmeasured).toEqual({ base: 0, switch: 0 });
  });

  it("counts sessions without a model call on the focus task apart", async () => {
    const root = tempDir("report-paper-nocall-");
    const r = await buildReport(
      [
        writeRunFixture(root, {
          pairs: [{ locality: "near", base: "resolved", switch: "resolved" }],
          events: () => [{ kind: "tool_call", name: "edit", paths: ["a"] }],
        }).runDir,
      ],
      { resamples: 50 },
    );
    const c = r.configs[0]!.resolution_by_context;
    expect(c.unmeasured).toEqual({ base: 1, switch: 1 });
    expect(c.bins.every((b) => b.base.sessions === 0 && b.switch.sessions === 0)).toBe(true);
    expect(renderReport(r, "table")).toContain("1 uninterrupted and 1 switched sessions made no model call on the focus task");
  });
});

describe("interruption-task reuse", () => {
  it("counts each interruption task's switched sessions", () => {
    const u = report.configs[0]!.interruption_reuse;
    // The fixture gives every pair four interruption tasks of its own.
    expect(u).toMatchObject({ switched_sessions: 10, slots: 40, distinct_tasks: 40, also_focus: 0, uses: { median: 1, max: 1 } });
  });

  it("sees a task that interrupts several sessions, and one that is also a focus task", () => {
    const c = report.configs[0]!;
    // Every switched session interrupted by the same task, t09 (itself a focus task) in the first of them.
    const sessions = c.sessions.map((s) => {
      if (s.condition !== "switch") return s;
      const [first] = Object.entries(s.workspaces).filter(([, t]) => t !== s.focus);
      return { ...s, workspaces: { ...s.workspaces, [first![0]]: s.focus === "t00" ? "t09" : "x0-1" } };
    });
    const u = interruptionReuse({ ...c, sessions });
    expect(u.most_used).toEqual({ task: "x0-1", sessions: 9 });
    // x1-1 .. x9-1 gone, t09 added.
    expect(u.distinct_tasks).toBe(40 - 9 + 1);
    expect(u.also_focus).toBe(1);
    expect(u.uses.max).toBe(9);
  });
});

describe("the task catalogue", () => {
  it("lists each focus task with its objective, stages, locality and verifier size", () => {
    const cat = report.configs[0]!.catalogue;
    expect(cat).toHaveLength(10);
    expect(cat[3]).toEqual({
      task: "t03",
      repo: "r",
      locality: "far",
      objective: 'Stage 1 of t03: make <Widget> & "quotes" work',
      stages: 3,
      tested_stages: 3,
      f2p: 3,
      p2p: 1,
    });
  });

  it("takes the first sentence of the first request, at most 120 characters", () => {
    expect(objectiveOf("Add a --dry-run flag. It must print the plan.\nMore.")).toBe("Add a --dry-run flag.");
    expect(objectiveOf(`${"word ".repeat(40)}end`)).toHaveLength(120);
    expect(objectiveOf(`${"word ".repeat(40)}end`).endsWith("…")).toBe(true);
  });

  it("is in table and markdown only when asked, always in json and html", () => {
    expect(renderReport(report, "table")).not.toContain("Task catalogue");
    const table = renderReport(report, "table", { catalogue: true });
    expect(table).toContain("Task catalogue: fixture 1.0.0");
    expect(table).toMatch(/\nt03\s+r\s+far\s+3\s+3\s+3\s+1\s+Stage 1 of t03/);
    expect(renderReport(report, "markdown", { catalogue: true })).toContain(
      '| t03 | r | far | 3 | 3 | 3 | 1 | Stage 1 of t03: make &lt;Widget&gt; & "quotes" work |',
    );
    expect(renderReport(report, "html")).toContain('id="table-catalogue"');
  });
});

describe("in every format", () => {
  it("json carries each analysis per configuration and matches the schema", () => {
    const json = JSON.parse(renderReport(report, "json")) as Report;
    expect(reportSchema.safeParse(json).success).toBe(true);
    const c = json.configs[0]!;
    expect(c.far_minus_near.difference).toBeCloseTo(-20, 9);
    expect(c.resumed_focus_token_ratio.ratio).toBeCloseTo(370 / 680, 12);
    expect(Object.keys(c)).toEqual(expect.arrayContaining(["resolution_by_context", "interruption_reuse", "catalogue"]));
  });

  it("table, markdown and html show the far − near difference and the token ratio", () => {
    const table = renderReport(report, "table");
    expect(table).toMatch(
      /Far − near: does distance between the tasks widen the gap\?\n=+\nConfiguration.*\n-.*\noracle forget=0\.5\s+5\s+\+60\.0\s+5\s+\+40\.0\s+-20\.0\s+\[-\d+\.\d, \+?-?\d+\.\d\]/,
    );
    expect(table).toMatch(/oracle forget=0\.5\s+9\s+370\s+680\s+0\.54×\s+\[0\.54×, 0\.54×\]/);
    expect(table).toMatch(/Interruption tasks reused across sessions[\s\S]*oracle forget=0\.5\s+10\s+40\s+40\s+0\s+1\.0 \/ 1/);
    const md = renderReport(report, "markdown");
    expect(md).toContain("### Far − near: does distance between the tasks widen the gap?");
    expect(md).toMatch(/\| oracle forget=0\.5 \| 5 \| \+60\.0 \| 5 \| \+40\.0 \| -20\.0 \| \[/);
    const html = renderReport(report, "html");
    for (const id of ["far-minus-near", "resumed-focus-token-ratio", "resolution-by-context", "interruption-reuse"])
      expect(html).toContain(`<table id="table-${id}">`);
  });
});
