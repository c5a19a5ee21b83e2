import { describe, expect, it } from "vitest";
import {
  binomialCdfHalf,
  bootstrapGapCI,
  discordant,
  gapOf,
  mcnemarExact,
  pairedGapDifferenceCI,
  percentileSorted,
  powerOf,
  summarize,
  type Pair,
} from "../../src/report/stats.js";
import type { GroupResult } from "../../src/report/report-schema.js";

const pairs = (spec: Array<[number, number, number]>): Pair[] =>
  spec.flatMap(([b, s, k]) => Array.from({ length: k }, () => [b === 1, s === 1] as const));

describe("McNemar exact test", () => {
  it("matches hand-computed values", () => {
    expect(mcnemarExact(5, 0)).toBeCloseTo(0.0625, 12); // 2 · (1/2)^5
    expect(mcnemarExact(0, 5)).toBeCloseTo(0.0625, 12);
    expect(mcnemarExact(3, 0)).toBe(0.25);
    expect(mcnemarExact(5, 0)).toBe(0.0625);
    expect(mcnemarExact(2, 0)).toBeCloseTo(0.5, 12);
    expect(mcnemarExact(1, 4)).toBeCloseTo(0.375, 12); // 2 · (1 + 5)/32
    expect(mcnemarExact(8, 2)).toBeCloseTo((2 * (1 + 10 + 45)) / 1024, 12);
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
  });
  it("stays finite and exact-ish for large counts", () => {
    const p = mcnemarExact(600, 400);
    expect(Number.isFinite(p)).toBe(true);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(1e-8);
    expect(binomialCdfHalf(1000, 2000)).toBeGreaterThan(0.5);
    expect(binomialCdfHalf(1000, 2000)).toBeLessThan(0.52);
    expect(binomialCdfHalf(500, 1001)).toBeCloseTo(0.5, 10); // log-space path, symmetric
    expect(binomialCdfHalf(499, 999)).toBeCloseTo(0.5, 12); // direct path, symmetric
    expect(binomialCdfHalf(-1, 5)).toBe(0);
    expect(binomialCdfHalf(5, 5)).toBe(1);
  });
});

describe("gap and discordant pairs", () => {
  it("counts b and c and the gap in percentage points", () => {
    const p = pairs([
      [1, 0, 5],
      [1, 1, 3],
      [0, 0, 2],
    ]);
    expect(gapOf(p)).toEqual({ uninterrupted: 80, switched: 30, gap: 50 });
    expect(discordant(p)).toEqual({ base_only: 5, switch_only: 0 });
    expect(gapOf([])).toEqual({ uninterrupted: null, switched: null, gap: null });
  });
});

describe("percentile bootstrap", () => {
  it("uses R type-7 percentiles", () => {
    expect(percentileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(percentileSorted([1, 2, 3, 4], 0)).toBe(1);
    expect(percentileSorted([1, 2, 3, 4], 1)).toBe(4);
    expect(percentileSorted([0, 10], 0.025)).toBeCloseTo(0.25, 12);
  });
  it("is reproducible with the same seed and changes with another seed", () => {
    const p = pairs([
      [1, 0, 5],
      [1, 1, 3],
      [0, 0, 1],
      [0, 1, 1],
    ]);
    const a = bootstrapGapCI(p, { seed: 0, resamples: 200 });
    expect(bootstrapGapCI(p, { seed: 0, resamples: 200 })).toEqual(a);
    expect(bootstrapGapCI(p, { seed: 1, resamples: 200 })).not.toEqual(a);
  });
  it("brackets the gap, and collapses when every task agrees", () => {
    const p = pairs([
      [1, 0, 5],
      [1, 1, 3],
      [0, 0, 2],
    ]);
    const [lo, hi] = bootstrapGapCI(p)!;
    expect(lo).toBeLessThanOrEqual(50);
    expect(hi).toBeGreaterThanOrEqual(50);
    expect(lo).toBeGreaterThanOrEqual(0); // no task has switched-only success
    expect(hi).toBeLessThanOrEqual(100);
    expect(bootstrapGapCI(pairs([[1, 0, 4]]))).toEqual([100, 100]);
    expect(bootstrapGapCI([])).toBeNull();
  });
  it("pairs the difference of gaps task by task", () => {
    const same = pairs([
      [1, 0, 3],
      [1, 1, 2],
    ]).map((a) => ({ a, b: a }));
    expect(pairedGapDifferenceCI(same)).toEqual([0, 0]);
    const ci = pairedGapDifferenceCI(
      pairs([
        [1, 0, 4],
        [1, 1, 4],
      ]).map((a, i) => ({ a, b: [true, i % 2 === 0 ? true : a[1]] as Pair })),
    );
    expect(ci![0]).toBeLessThanOrEqual(ci![1]);
  });
});

describe("summaries", () => {
  it("median of odd and even counts", () => {
    expect(summarize([3, 1, 2]).median).toBe(2);
    expect(summarize([4, 1, 2, 3])).toEqual({ median: 2.5, mean: 2.5, min: 1, max: 4 });
    expect(summarize([]).median).toBeNull();
  });
});

describe("schedule profile", () => {
  it("flags exactly the focus returns it counts", async () => {
    const { profileSteps } = await import("../../src/sessions/stats.js");
    const { referenceSpec, writeRunFixture } = await import("./fixtures.js");
    const { tempDir } = await import("../helpers/temp.js");
    const fx = writeRunFixture(tempDir("profile-"), referenceSpec());
    for (const p of fx.sessions.pairs) {
      for (const c of ["base", "switch"] as const) {
        const prof = profileSteps(p.schedules[c], p.focus);
        expect(prof.returns).toHaveLength(prof.requests);
        expect(prof.returns.filter(Boolean).length).toBe(prof.focus_returns);
        prof.returns.forEach((isReturn, i) => {
          if (isReturn) expect(p.schedules[c][i]!.task).toBe(p.focus);
        });
      }
    }
  });
});

describe("power of a report's groups", () => {
  const group = (n: number, b: number, c: number): GroupResult => ({
    n,
    resolved: { uninterrupted: 0, switched: 0 },
    uninterrupted: null,
    switched: null,
    gap: null,
    ci95: null,
    mcnemar_p: null,
    discordant: { base_only: b, switch_only: c },
  });
  it("uses each group's observed discordance, 25% where no pair was discordant, and warns on the overall group only", () => {
    const p = powerOf({ overall: group(200, 30, 20), near: group(100, 0, 0), far: group(100, 30, 20) });
    expect(p.groups.overall).toEqual({ pairs: 200, discordant_pairs: 50, discordance: 25, assumed: false, min_detectable_gap: 10.2 });
    expect(p.groups.near).toEqual({ pairs: 100, discordant_pairs: 0, discordance: 25, assumed: true, min_detectable_gap: 14.5 });
    expect(p.groups.far).toMatchObject({ discordance: 50, assumed: false });
    expect(p.warning).toBeNull();
    expect(powerOf({ overall: group(100, 15, 10), near: group(0, 0, 0), far: group(100, 15, 10) }).warning).toMatch(
      /^100 session pairs detect only gaps of 14\.5 points or more/,
    );
    expect(powerOf({ overall: group(0, 0, 0), near: group(0, 0, 0), far: group(0, 0, 0) }).groups.overall.min_detectable_gap).toBeNull();
  });
});
