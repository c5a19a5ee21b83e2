import { describe, expect, it } from "vitest";
import {
  detectableGap,
  detectableGapLine,
  detectableGapWarning,
  mcnemarCriticalCount,
  mcnemarPower,
  minDetectableGap,
  pairsNeeded,
} from "../../src/core/power.js";
import { seededRandom } from "../../src/core/random.js";
import { mcnemarExact } from "../../src/report/stats.js";

/** Power by direct simulation: draw N pairs from the four cells, run the report's own exact test. */
function simulatedPower(n: number, d: number, g: number, runs: number, seed: number): number {
  const rng = seededRandom("test/power", seed);
  const p10 = (d + g) / 2;
  let rejected = 0;
  for (let r = 0; r < runs; r++) {
    let b = 0;
    let c = 0;
    for (let i = 0; i < n; i++) {
      const u = rng();
      if (u < p10) b++;
      else if (u < d) c++;
    }
    if (mcnemarExact(b, c) <= 0.05) rejected++;
  }
  return rejected / runs;
}

describe("the exact McNemar test's critical count", () => {
  it("agrees with the report's exact p-value for every split of up to 60 discordant pairs", () => {
    for (let D = 0; D <= 60; D++) {
      const k = mcnemarCriticalCount(D);
      for (let b = 0; b <= D; b++) expect(Math.min(b, D - b) <= k, `D=${D} b=${b}`).toBe(mcnemarExact(b, D - b) <= 0.05);
    }
  });

  it("needs six discordant pairs, all one way, at α = 0.05: with 25 pairs an observed gap must be 24 points (the issue's statement)", () => {
    expect(mcnemarCriticalCount(5)).toBe(-1);
    expect(mcnemarCriticalCount(6)).toBe(0);
    // The smallest observed gap (b − c)/25 that reaches p < 0.05 with 25 pairs.
    let smallest = Infinity;
    for (let b = 0; b <= 25; b++)
      for (let c = 0; b + c <= 25; c++) if (mcnemarExact(b, c) < 0.05) smallest = Math.min(smallest, Math.abs(100 * (b - c)) / 25);
    expect(smallest).toBe(24);
  });
});

describe("power of the exact McNemar test", () => {
  it("is the test's size or less at no gap, and 0 when too few pairs can be discordant", () => {
    for (const n of [10, 50, 200]) expect(mcnemarPower({ pairs: n, discordance: 0.25, gap: 0 })).toBeLessThanOrEqual(0.05);
    expect(mcnemarPower({ pairs: 5, discordance: 1, gap: 1 })).toBe(0);
    expect(mcnemarPower({ pairs: 6, discordance: 1, gap: 1 })).toBeCloseTo(1, 12); // six pairs, all one way
    expect(mcnemarPower({ pairs: 0, discordance: 0.25, gap: 0.1 })).toBe(0);
  });

  it("matches a hand computation: 6 pairs, every pair discordant with probability 1/2, always favouring base", () => {
    // Only D = 6 rejects (b = 6): P(D = 6) = 1/64.
    expect(mcnemarPower({ pairs: 6, discordance: 0.5, gap: 0.5 })).toBeCloseTo(1 / 64, 12);
  });

  it("matches a seeded simulation of the report's own test within four standard errors", () => {
    for (const [n, d, g] of [
      [100, 0.25, 0.145],
      [50, 0.3, 0.1],
      [200, 0.2, 0.08],
    ] as const) {
      const exact = mcnemarPower({ pairs: n, discordance: d, gap: g });
      const sim = simulatedPower(n, d, g, 4000, n);
      expect(Math.abs(sim - exact), `N=${n} d=${d} g=${g}: exact ${exact}, simulated ${sim}`).toBeLessThan(
        4 * Math.sqrt((exact * (1 - exact)) / 4000),
      );
    }
  });

  it("grows with the gap at fixed pairs and discordance (what the bisection relies on)", () => {
    for (const n of [25, 60, 140]) {
      let last = -1;
      for (let t = 0; t <= 250; t += 5) {
        const p = mcnemarPower({ pairs: n, discordance: 0.25, gap: t / 1000 });
        expect(p).toBeGreaterThanOrEqual(last - 1e-12);
        last = p;
      }
    }
  });

  it("refuses impossible inputs", () => {
    expect(() => mcnemarPower({ pairs: 10, discordance: 0.2, gap: 0.3 })).toThrow(/gap/);
    expect(() => mcnemarPower({ pairs: 10, discordance: 0, gap: 0 })).toThrow(/discordance/);
    expect(() => mcnemarPower({ pairs: 1.5, discordance: 0.2, gap: 0.1 })).toThrow(/pairs/);
  });
});

describe("minimum detectable gap", () => {
  it("gives the figures of docs/report-format.md at 25% discordance", () => {
    const at = (n: number) => minDetectableGap({ pairs: n, discordance: 0.25 });
    expect([25, 50, 100, 140, 200].map(at)).toEqual([null, 19.9, 14.5, 12.3, 10.2]);
  });

  it("agrees with the issue's estimates within the exact test's conservatism", () => {
    // About 100 pairs: at most 14 points (normal approximation 14.0); the exact test needs 14.5.
    expect(minDetectableGap({ pairs: 100, discordance: 0.25 })!).toBeGreaterThan(13.5);
    expect(minDetectableGap({ pairs: 100, discordance: 0.25 })!).toBeLessThan(15);
    // 200 pairs: about 10.
    expect(Math.abs(minDetectableGap({ pairs: 200, discordance: 0.25 })! - 10)).toBeLessThan(0.5);
    // About 140 pairs for 80% power at 11.5 points (normal approximation 148); exact: 158.
    expect(pairsNeeded({ gap: 0.115, discordance: 0.25 })).toBe(158);
  });

  it("is the smallest tenth of a point that reaches 80% power (bisection = linear scan)", () => {
    for (const [n, d] of [
      [40, 0.3],
      [100, 0.25],
      [73, 0.18],
    ] as const) {
      let scan: number | null = null;
      for (let t = 1; t <= Math.round(d * 1000); t++) {
        if (mcnemarPower({ pairs: n, discordance: d, gap: Math.min(d, t / 1000) }) >= 0.8) {
          scan = t / 10;
          break;
        }
      }
      expect(minDetectableGap({ pairs: n, discordance: d })).toBe(scan);
    }
  });

  it("is null when no gap up to the discordance reaches the power", () => {
    expect(minDetectableGap({ pairs: 25, discordance: 0.25 })).toBeNull();
    expect(minDetectableGap({ pairs: 0, discordance: 0.25 })).toBeNull();
    expect(minDetectableGap({ pairs: 1000, discordance: 0.0005 })).toBeNull();
  });

  it("pairsNeeded is the first N whose power reaches 80%", () => {
    const n = pairsNeeded({ gap: 0.2, discordance: 0.3 })!;
    expect(mcnemarPower({ pairs: n, discordance: 0.3, gap: 0.2 })).toBeGreaterThanOrEqual(0.8);
    for (let m = 1; m < n; m++) expect(mcnemarPower({ pairs: m, discordance: 0.3, gap: 0.2 })).toBeLessThan(0.8);
    expect(pairsNeeded({ gap: 0.3, discordance: 0.2 })).toBeNull();
  });
});

describe("what the user sees", () => {
  it("uses the observed discordance, or 25% when none was observed, and says which", () => {
    expect(detectableGap(100, 25)).toEqual({ pairs: 100, discordant_pairs: 25, discordance: 25, assumed: false, min_detectable_gap: 14.5 });
    expect(detectableGap(100, 0)).toEqual({ pairs: 100, discordant_pairs: 0, discordance: 25, assumed: true, min_detectable_gap: 14.5 });
    expect(detectableGap(100, null).assumed).toBe(true);
    expect(detectableGapLine(detectableGap(100, null))).toBe(
      "the smallest gap these 100 pairs can detect: 14.5 points (exact McNemar, α = 0.05, 80% power, 25.0% discordance assumed)",
    );
    expect(detectableGapLine(detectableGap(100, 0))).toMatch(/, 25\.0% discordance assumed, none observed\)$/);
    expect(detectableGapLine(detectableGap(100, 40))).toMatch(/, 40\.0% discordance observed\)$/);
    expect(detectableGapLine(detectableGap(25, null))).toBe(
      "no gap is detectable with these 25 pairs (exact McNemar, α = 0.05, 80% power, 25.0% discordance assumed): even a gap of 25.0 points, every disagreeing pair on one side, is found less than 80% of the time",
    );
  });

  it("warns in one line when the gap the pairs detect is larger than 11.5 points", () => {
    expect(detectableGapWarning(detectableGap(200, null))).toBeNull();
    const w = detectableGapWarning(detectableGap(100, null))!;
    expect(w).toBe(
      "100 session pairs detect only gaps of 14.5 points or more, not the paper's mean gap of 11.5 points: a real gap may go unseen (about 158 pairs would at 25.0% discordance)",
    );
    expect(w).not.toMatch(/\n/);
    expect(detectableGapWarning(detectableGap(25, null))).toMatch(/^25 session pairs detect no gap at all, not the paper's mean gap/);
    expect(detectableGapWarning(detectableGap(100, 5))).toMatch(/no number of pairs detects it at 5\.0% discordance\)$/);
  });
});
