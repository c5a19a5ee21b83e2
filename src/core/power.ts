/**
 * Power of the exact (conditional binomial) McNemar test, and the smallest resolution gap a number of
 * session pairs can detect (docs/report-format.md, "Power"). Pure.
 *
 * A pair falls in one of four cells: both resolved or neither (probability 1 − d), only the uninterrupted
 * session resolved (p10), only the switched one (p01). With discordance d = p10 + p01 and gap
 * g = p10 − p01 (so g ≤ d): p10 = (d + g)/2, p01 = (d − g)/2. Of N pairs, D ~ Binomial(N, d) are
 * discordant; given D, the count favouring the uninterrupted session is Binomial(D, p10/d), and the
 * exact two-sided test rejects when 2·P(X ≤ min(b, D − b)) ≤ α under X ~ Binomial(D, 1/2).
 * Power = Σ_D P(D) · P(reject | D).
 */

export const DEFAULT_ALPHA = 0.05;
export const DEFAULT_POWER = 0.8;
/** Assumed paired discordance when none is observed (before a run, or a run without discordant pairs). */
export const ASSUMED_DISCORDANCE = 0.25;
/** The paper's mean gap, in percentage points: a benchmark that cannot detect it gets a warning. */
export const REFERENCE_GAP_POINTS = 11.5;

/** log(k!) for k = 0..n. */
function logFactorials(n: number): Float64Array {
  const out = new Float64Array(n + 1);
  for (let k = 2; k <= n; k++) out[k] = out[k - 1]! + Math.log(k);
  return out;
}

/** log P(X = k) for X ~ Binomial(n, p), with the cases p ∈ {0, 1} exact. */
function logPmf(lf: Float64Array, n: number, k: number, p: number): number {
  if (p <= 0) return k === 0 ? 0 : -Infinity;
  if (p >= 1) return k === n ? 0 : -Infinity;
  return lf[n]! - lf[k]! - lf[n - k]! + k * Math.log(p) + (n - k) * Math.log1p(-p);
}

/**
 * The largest b with 2·P(X ≤ b) ≤ alpha, X ~ Binomial(D, 1/2): the test rejects when min(b, D − b) is at
 * most this. −1 when no split of D discordant pairs can reach significance (D ≤ 5 at α = 0.05).
 */
export function mcnemarCriticalCount(discordantPairs: number, alpha = DEFAULT_ALPHA): number {
  const lf = logFactorials(discordantPairs);
  let cdf = 0;
  let k = -1;
  for (let b = 0; 2 * b < discordantPairs; b++) {
    cdf += Math.exp(logPmf(lf, discordantPairs, b, 0.5));
    if (2 * cdf > alpha) break;
    k = b;
  }
  return k;
}

export interface PowerQuery {
  /** Session pairs (focus tasks). */
  pairs: number;
  /** Paired discordance d, a fraction in (0, 1]. */
  discordance: number;
  /** Gap g = p10 − p01, a fraction in [0, d]. */
  gap: number;
  alpha?: number;
}

/** Probability that the exact two-sided McNemar test rejects at level alpha. */
export function mcnemarPower(q: PowerQuery): number {
  const { pairs: n, discordance: d, gap: g } = q;
  const alpha = q.alpha ?? DEFAULT_ALPHA;
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`pairs must be a non-negative integer, got ${n}`);
  if (!(d > 0 && d <= 1)) throw new RangeError(`discordance must be in (0, 1], got ${d}`);
  if (!(g >= 0 && g <= d + 1e-12)) throw new RangeError(`gap must be in [0, discordance], got ${g}`);
  const lf = logFactorials(n);
  const split = Math.min(1, (d + g) / (2 * d));
  let power = 0;
  const critical = new Map<number, number>();
  for (let D = 0; D <= n; D++) {
    const pD = Math.exp(logPmf(lf, n, D, d));
    if (pD < 1e-15) continue; // the tails of D carry no weight in double precision
    let k = critical.get(D);
    if (k === undefined) critical.set(D, (k = mcnemarCriticalCount(D, alpha)));
    if (k < 0) continue;
    let reject = 0;
    for (let b = 0; b <= k; b++) reject += Math.exp(logPmf(lf, D, b, split)) + Math.exp(logPmf(lf, D, D - b, split));
    power += pD * Math.min(1, reject);
  }
  return Math.min(1, power);
}

export interface DetectableQuery {
  pairs: number;
  /** Paired discordance, a fraction in (0, 1]. */
  discordance: number;
  alpha?: number;
  power?: number;
}

/**
 * The smallest gap, in percentage points to 0.1, that the exact McNemar test detects with the given power
 * (default 80%) at the given discordance; null when even g = d (every discordant pair favours one side)
 * does not reach it. Power grows with g at fixed N and d (the rejection region is symmetric and the split
 * moves away from 1/2), so a bisection over tenths of a point finds the smallest.
 */
export function minDetectableGap(q: DetectableQuery): number | null {
  const target = q.power ?? DEFAULT_POWER;
  const at = (tenths: number) =>
    mcnemarPower({ pairs: q.pairs, discordance: q.discordance, gap: Math.min(q.discordance, tenths / 1000), alpha: q.alpha }) >= target;
  let hi = Math.floor(q.discordance * 1000 + 1e-9);
  if (q.pairs === 0 || hi === 0 || !at(hi)) return null;
  let lo = 0; // power at g = 0 is at most alpha < target
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (at(mid)) hi = mid;
    else lo = mid;
  }
  return hi / 10;
}

/**
 * The smallest number of pairs whose power (α = 0.05) at this gap and discordance reaches 80%; null when the
 * gap exceeds the discordance. Exact power saw-tooths in N, so the scan starts well below the normal
 * approximation N ≈ (z₁₋α/₂ + z_power)² · d / g² and walks up one pair at a time.
 */
export function pairsNeeded(q: { gap: number; discordance: number }): number | null {
  if (!(q.gap > 0) || q.gap > q.discordance) return null;
  const approx = ((1.96 + 0.8416) ** 2 * q.discordance) / (q.gap * q.gap);
  for (let n = Math.max(1, Math.floor(0.6 * approx)); n < 100 * approx + 100; n++) {
    if (mcnemarPower({ pairs: n, discordance: q.discordance, gap: q.gap }) >= DEFAULT_POWER) return n;
  }
  return null;
}

export interface DetectableGap {
  pairs: number;
  /** Discordant pairs observed in a run; null before a run. */
  discordant_pairs: number | null;
  /** Paired discordance used, in percent. */
  discordance: number;
  /** True when no discordance was observed (before a run, or a run without discordant pairs): 25% is assumed. */
  assumed: boolean;
  /** Percentage points to 0.1; null when no gap up to the discordance reaches the power (or no pairs). */
  min_detectable_gap: number | null;
}

/** The minimum detectable gap of N pairs, at an observed discordance (discordant pairs / N) or, without one, 25%. */
export function detectableGap(pairs: number, discordantPairs: number | null): DetectableGap {
  const assumed = discordantPairs === null || discordantPairs === 0 || pairs === 0;
  const d = assumed ? ASSUMED_DISCORDANCE : discordantPairs / pairs;
  return {
    pairs,
    discordant_pairs: discordantPairs,
    discordance: 100 * d,
    assumed,
    min_detectable_gap: minDetectableGap({ pairs, discordance: d }),
  };
}

const pts = (x: number) => x.toFixed(1);

/**
 * One sentence a reader can parse: the smallest gap these pairs detect, or plainly that none can be, with
 * the power and the discordance it assumes (observed, or 25% when no pair disagreed).
 */
export function detectableGapLine(g: DetectableGap): string {
  const d = `${pts(g.discordance)}% discordance`;
  const at = g.assumed ? `${d} assumed${g.discordant_pairs === null ? "" : ", none observed"}` : `${d} observed`;
  const how = `exact McNemar, α = ${DEFAULT_ALPHA}, ${100 * DEFAULT_POWER}% power, ${at}`;
  if (g.min_detectable_gap === null) {
    return `no gap is detectable with these ${g.pairs} pairs (${how}): even a gap of ${pts(g.discordance)} points, every disagreeing pair on one side, is found less than ${100 * DEFAULT_POWER}% of the time`;
  }
  return `the smallest gap these ${g.pairs} pairs can detect: ${pts(g.min_detectable_gap)} points (${how})`;
}

/** A one-line warning when the benchmark cannot detect the paper's mean gap of 11.5 points; null otherwise. */
export function detectableGapWarning(g: DetectableGap): string | null {
  if (g.min_detectable_gap !== null && g.min_detectable_gap <= REFERENCE_GAP_POINTS) return null;
  const needed = pairsNeeded({ gap: REFERENCE_GAP_POINTS / 100, discordance: g.discordance / 100 });
  const more =
    needed === null
      ? `no number of pairs detects it at ${pts(g.discordance)}% discordance`
      : `about ${needed} pairs would at ${pts(g.discordance)}% discordance`;
  const what = g.min_detectable_gap === null ? "detect no gap at all" : `detect only gaps of ${pts(g.min_detectable_gap)} points or more`;
  return `${g.pairs} session pairs ${what}, not the paper's mean gap of ${REFERENCE_GAP_POINTS} points: a real gap may go unseen (${more})`;
}
