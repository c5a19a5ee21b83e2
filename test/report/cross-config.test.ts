import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildReport, renderReport } from "../../src/report/index.js";
import { bootstrapMeanGapCI, mcnemarExact, signFlipExactP } from "../../src/report/stats.js";
import { referenceSpec, writeRunFixture } from "./fixtures.js";
import { writeSignatureFixture } from "./signature-fixture.js";

describe("statistics across configurations", () => {
  it("sign-flip test: exact, equal to McNemar on ±100 differences, 1 with no difference", () => {
    for (const [b, c] of [
      [5, 0],
      [3, 1],
      [7, 2],
      [0, 0],
    ] as const) {
      const values = [...Array(b).fill(100), ...Array(c).fill(-100), 0, 0];
      expect(signFlipExactP(values)).toBeCloseTo(mcnemarExact(b, c), 12);
    }
    // ±200 ± 100: sums 3, 1, −1, −3 equally likely; |S| ≥ 3 has probability 1/2.
    expect(signFlipExactP([200, 100])).toBeCloseTo(0.5, 12);
    expect(signFlipExactP([200, -100])).toBeCloseTo(1, 12);
    expect(signFlipExactP([])).toBeNull();
  });

  it("bootstrap CI of the mean gap: deterministic, inside the range of possible means, degenerate for constant data", () => {
    const a = [100, 100, 0, 0, 100, 0, 0, 0, 0, 0];
    const b = [0, 0, 0, 100, 0, 0, 0, 0, 0, 0];
    const ci = bootstrapMeanGapCI([a, b], { seed: 1, resamples: 2000 })!;
    expect(bootstrapMeanGapCI([a, b], { seed: 1, resamples: 2000 })).toEqual(ci);
    expect(ci[0]).toBeLessThanOrEqual(20);
    expect(ci[1]).toBeGreaterThanOrEqual(20);
    expect(ci[0]).toBeGreaterThanOrEqual(0);
    expect(
      bootstrapMeanGapCI(
        [
          [100, 100],
          [0, 0],
        ],
        { resamples: 100 },
      ),
    ).toEqual([50, 50]);
    expect(bootstrapMeanGapCI([[], []])).toBeNull();
  });

  it("summarizes gaps across runs, compares two with a p-value, and reads the harness from run.json", async () => {
    const root = mkdtempSync(join(tmpdir(), "xcfg-"));
    const a = writeRunFixture(join(root, "a"), referenceSpec());
    const b = writeRunFixture(join(root, "b"), {
      ...referenceSpec(),
      label: "B",
      pairs: referenceSpec().pairs.map((p, i) => (i < 3 ? { ...p, switch: "resolved" as const } : p)),
    });
    const report = await buildReport([a.runDir, b.runDir], { compare: true, resamples: 1000 });
    expect(report.configs.map((c) => c.groups.overall.gap)).toEqual([50, 20]);
    expect(report.summary.overall).toMatchObject({ configs: 2, mean_gap: 35, min_gap: 20, max_gap: 50 });
    const [lo, hi] = report.summary.overall.ci95!;
    expect(lo).toBeLessThanOrEqual(35);
    expect(hi).toBeGreaterThanOrEqual(35);
    // Three tasks differ, all the same way (+100 each): p = 2 / 2^3.
    expect(report.comparison!.groups.overall.gap_difference).toBe(30);
    expect(report.comparison!.groups.overall.p_value).toBeCloseTo(0.25, 12);
    // The oracle is the harness's own agent (run.json of the fixture records no switch-swe version).
    expect(report.configs[0]!.harness).toEqual({ name: "switch-swe", version: null, model: "oracle", effort: null });
    // Workload per locality: near = pairs 0,1,2,5,8 (8 never ran uninterrupted), far = 3,4,6,7,9.
    expect(report.configs[0]!.workload_by_locality.near.uninterrupted.sessions).toBe(4);
    expect(report.configs[0]!.workload_by_locality.far.uninterrupted.sessions).toBe(5);
    expect(report.configs[0]!.profile.overall.base.repositories).toBe(1);
    // Figure data: a point and a bar per configuration and condition.
    expect(report.figures.resolution_vs_cost.map((p) => [p.config, p.condition, p.resolution])).toEqual([
      [0, "base", 80],
      [0, "switch", 30],
      [1, "base", 80],
      [1, "switch", 60],
    ]);
    expect(report.figures.failure_categories[1]).toMatchObject({
      config: 0,
      condition: "switch",
      resolved: 3,
      implementation: 4,
      submission: 1,
      incomplete_execution: 1,
      not_scored: 1,
    });
    const table = renderReport(report, "table");
    expect(table).toContain("Across configurations");
    expect(table).toMatch(/Overall\s+2\s+\+35\.0/);
    expect(table).toContain("0.2500");

    const sig = await buildReport([writeSignatureFixture(join(root, "sig")).runDir], { resamples: 100 });
    expect(sig.configs[0]!.harness).toEqual({ name: "hand-harness", version: "1.2.3", model: "m-1", effort: "high" });
    expect(sig.figures.resolution_vs_cost[0]).toMatchObject({ tokens: 4400, cost_usd: 0.04 });
    expect(renderReport(sig, "markdown")).toMatch(/\| hand \| hand \| hand-harness \| 1\.2\.3 \| m-1 \| high \|/);
  });
});
