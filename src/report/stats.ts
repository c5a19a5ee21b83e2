import { DEFAULT_ALPHA, DEFAULT_POWER, detectableGap, detectableGapWarning } from "../core/power.js";
import { seededRandom, type Random } from "../core/random.js";
import type { ByGroup, GroupResult, Power } from "./report-schema.js";

/**
 * Pure statistics of the report (docs/report-format.md, "Statistics").
 * A pair is one focus task: [uninterrupted resolved, switched resolved].
 */
export type Pair = readonly [base: boolean, switched: boolean];

export const DEFAULT_SEED = 0;
export const DEFAULT_RESAMPLES = 10_000;

/** The bootstrap stream: one fresh stream per interval, so an interval depends only on its data and the seed. */
export function bootstrapRandom(seed: number): Random {
  return seededRandom("switch-swe.report/bootstrap", seed);
}

/** Percentage of true values among n (null when n is 0). */
export function percent(count: number, n: number): number | null {
  return n === 0 ? null : (100 * count) / n;
}

/** Resolution rates and gap (uninterrupted − switched, percentage points) of a set of pairs. */
export function gapOf(pairs: readonly Pair[]): { uninterrupted: number | null; switched: number | null; gap: number | null } {
  let b = 0;
  let s = 0;
  for (const [base, sw] of pairs) {
    if (base) b++;
    if (sw) s++;
  }
  const u = percent(b, pairs.length);
  const w = percent(s, pairs.length);
  return { uninterrupted: u, switched: w, gap: u === null || w === null ? null : u - w };
}

/** b = uninterrupted resolved and switched not; c = the reverse. */
export function discordant(pairs: readonly Pair[]): { base_only: number; switch_only: number } {
  let b = 0;
  let c = 0;
  for (const [base, sw] of pairs) {
    if (base && !sw) b++;
    else if (!base && sw) c++;
  }
  return { base_only: b, switch_only: c };
}

/** P(X <= k) for X ~ Binomial(n, 1/2), summed in log space so large n does not underflow. */
export function binomialCdfHalf(k: number, n: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (n <= 1000) {
    // Exact in doubles for small n (2^-n is representable): term_i = C(n, i) / 2^n.
    let term = Math.pow(0.5, n);
    let sum = 0;
    for (let i = 0; i <= k; i++) {
      sum += term;
      term = (term * (n - i)) / (i + 1);
    }
    return Math.min(1, sum);
  }
  const logHalfN = -n * Math.LN2;
  let logC = 0; // log C(n, 0)
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    sum += Math.exp(logC + logHalfN);
    logC += Math.log(n - i) - Math.log(i + 1);
  }
  return Math.min(1, sum);
}

/** Exact two-sided McNemar test: p = min(1, 2·P(X ≤ min(b, c))), X ~ Bin(b + c, 1/2); p = 1 when b + c = 0. */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  return Math.min(1, 2 * binomialCdfHalf(Math.min(b, c), n));
}

/**
 * The smallest gap each group's pairs detect at its observed discordance (25% when no pair was
 * discordant), and the one-line warning when the overall one exceeds the paper's mean gap.
 */
export function powerOf(groups: ByGroup<GroupResult>): Power {
  const at = (g: GroupResult) => detectableGap(g.n, g.discordant.base_only + g.discordant.switch_only);
  const out = { overall: at(groups.overall), near: at(groups.near), far: at(groups.far) };
  return { alpha: DEFAULT_ALPHA, power: DEFAULT_POWER, groups: out, warning: detectableGapWarning(out.overall) };
}

/** Percentile with linear interpolation between closest ranks (R type 7) of an ascending array. */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (h - lo) * (b - a);
}

export interface BootstrapOptions {
  seed?: number;
  resamples?: number;
}

/**
 * 95% percentile bootstrap interval of a statistic that is a mean over focus tasks of a per-task value
 * (in percentage points): resample the tasks with replacement `resamples` times, take the 2.5th and
 * 97.5th percentiles of the resampled means. Null for no tasks.
 */
export function bootstrapMeanCI(values: readonly number[], opts: BootstrapOptions = {}): [number, number] | null {
  const n = values.length;
  if (n === 0) return null;
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const rng = bootstrapRandom(opts.seed ?? DEFAULT_SEED);
  const stats = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += values[Math.floor(rng() * n)]!;
    stats[r] = sum / n;
  }
  stats.sort();
  return [percentileSorted(stats, 0.025), percentileSorted(stats, 0.975)];
}

/** Per focus task contribution to the gap, in percentage points: 100 · (base − switched) ∈ {−100, 0, 100}. */
export function gapContributions(pairs: readonly Pair[]): number[] {
  return pairs.map(([b, s]) => 100 * (Number(b) - Number(s)));
}

/** 95% bootstrap CI of the gap over focus tasks. */
export function bootstrapGapCI(pairs: readonly Pair[], opts: BootstrapOptions = {}): [number, number] | null {
  return bootstrapMeanCI(gapContributions(pairs), opts);
}

/**
 * Paired bootstrap CI of gap(A) − gap(B) over the focus tasks common to both configurations:
 * the same resampled tasks are used for both, so the per-task value is (a.base − a.switch) − (b.base − b.switch).
 */
export function pairedGapDifferenceCI(common: ReadonlyArray<{ a: Pair; b: Pair }>, opts: BootstrapOptions = {}): [number, number] | null {
  return bootstrapMeanCI(
    common.map(({ a, b }) => 100 * (Number(a[0]) - Number(a[1]) - (Number(b[0]) - Number(b[1])))),
    opts,
  );
}

export interface Summary {
  median: number | null;
  mean: number | null;
  min: number | null;
  max: number | null;
}

export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { median: null, mean: null, min: null, max: null };
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  let sum = 0;
  for (const v of sorted) sum += v;
  return { median, mean: sum / sorted.length, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

export function ratio(numerator: number | null, denominator: number | null): number | null {
  if (numerator === null || denominator === null || denominator === 0) return null;
  return numerator / denominator;
}

/**
 * Exact two-sided sign-flip test (the paired permutation test) of "the per-task differences are
 * symmetric around 0": p = P(|Σ ±|d_i|| ≥ |Σ d_i|) over all 2^n sign assignments, counted exactly by
 * dynamic programming over the integer sums (values are whole percentage points, multiples of 100 here).
 * Null for no tasks; 1 when every difference is 0.
 */
export function signFlipExactP(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const unit = 100;
  const mags = values.map((v) => Math.round(Math.abs(v) / unit)).filter((m) => m > 0);
  const observed = Math.abs(Math.round(values.reduce((a, b) => a + b, 0) / unit));
  const total = mags.reduce((a, b) => a + b, 0);
  if (total === 0) return 1;
  // dist[s + total] = probability of sum s; each nonzero magnitude is +m or −m with probability 1/2.
  let dist = new Float64Array(2 * total + 1);
  dist[total] = 1;
  for (const m of mags) {
    const next = new Float64Array(2 * total + 1);
    for (let i = 0; i < dist.length; i++) {
      const p = dist[i]!;
      if (p === 0) continue;
      next[i - m] = (next[i - m] ?? 0) + p / 2;
      next[i + m] = (next[i + m] ?? 0) + p / 2;
    }
    dist = next;
  }
  let p = 0;
  for (let i = 0; i < dist.length; i++) if (Math.abs(i - total) >= observed) p += dist[i]!;
  return Math.min(1, p);
}

/**
 * 95% percentile bootstrap CI of the mean over configurations of each one's gap: every resample draws
 * each configuration's focus tasks with replacement (independently), takes each gap, then their mean.
 * Values are per-task gap contributions (see gapContributions). Null when no configuration has tasks.
 */
export function bootstrapMeanGapCI(perConfig: ReadonlyArray<readonly number[]>, opts: BootstrapOptions = {}): [number, number] | null {
  const lists = perConfig.filter((v) => v.length > 0);
  if (lists.length === 0) return null;
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  const rng = bootstrapRandom(opts.seed ?? DEFAULT_SEED);
  const stats = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sumOfMeans = 0;
    for (const values of lists) {
      const n = values.length;
      let sum = 0;
      for (let i = 0; i < n; i++) sum += values[Math.floor(rng() * n)]!;
      sumOfMeans += sum / n;
    }
    stats[r] = sumOfMeans / lists.length;
  }
  stats.sort();
  return [percentileSorted(stats, 0.025), percentileSorted(stats, 0.975)];
}

/** Percentile 95% interval of `stat` over `resamples` draws: the shared tail of the bootstraps below. */
function percentileInterval(resamples: number, stat: (r: number) => number): [number, number] {
  const stats = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) stats[r] = stat(r);
  stats.sort();
  return [percentileSorted(stats, 0.025), percentileSorted(stats, 0.975)];
}

/**
 * 95% percentile bootstrap CI of mean(a) − mean(b) for two independent groups of focus tasks (far and near
 * are different tasks, so each is resampled on its own). Null when either group is empty.
 */
export function bootstrapMeanDifferenceCI(
  a: readonly number[],
  b: readonly number[],
  opts: BootstrapOptions = {},
): [number, number] | null {
  if (a.length === 0 || b.length === 0) return null;
  const rng = bootstrapRandom(opts.seed ?? DEFAULT_SEED);
  const mean = (v: readonly number[]) => {
    let sum = 0;
    for (let i = 0; i < v.length; i++) sum += v[Math.floor(rng() * v.length)]!;
    return sum / v.length;
  };
  return percentileInterval(opts.resamples ?? DEFAULT_RESAMPLES, () => mean(a) - mean(b));
}

/**
 * 95% percentile bootstrap CI of Σ numerator / Σ denominator over paired items (a ratio of means, each
 * pair resampled whole). Null for no pairs; resamples whose denominator sums to 0 are left out, and the
 * interval is null when every one is.
 */
export function bootstrapRatioCI(pairs: ReadonlyArray<readonly [number, number]>, opts: BootstrapOptions = {}): [number, number] | null {
  const n = pairs.length;
  if (n === 0) return null;
  const rng = bootstrapRandom(opts.seed ?? DEFAULT_SEED);
  const ratios: number[] = [];
  for (let r = 0; r < (opts.resamples ?? DEFAULT_RESAMPLES); r++) {
    let num = 0;
    let den = 0;
    for (let i = 0; i < n; i++) {
      const [x, y] = pairs[Math.floor(rng() * n)]!;
      num += x;
      den += y;
    }
    if (den > 0) ratios.push(num / den);
  }
  if (ratios.length === 0) return null;
  return percentileInterval(ratios.length, (r) => ratios[r]!);
}
