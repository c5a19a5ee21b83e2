/** How every text format writes a number, a share, an interval or a p value: one place, so the table, markdown and html agree. Pure. */

export const DASH = "–";

export function fmtPercent(x: number | null): string {
  return x === null ? DASH : `${x.toFixed(1)}%`;
}

export function fmtPoints(x: number | null): string {
  if (x === null) return DASH;
  const s = x.toFixed(1);
  return x > 0 && s !== "0.0" ? `+${s}` : s === "-0.0" ? "0.0" : s;
}

export function fmtInterval(ci: readonly [number, number] | null): string {
  return ci === null ? DASH : `[${fmtPoints(ci[0])}, ${fmtPoints(ci[1])}]`;
}

export function fmtPercentInterval(ci: readonly [number, number] | null): string {
  return ci === null ? DASH : `[${fmtPercent(ci[0])}, ${fmtPercent(ci[1])}]`;
}

export function fmtP(p: number | null): string {
  if (p === null) return DASH;
  if (p < 0.0001) return "<0.0001";
  return p.toFixed(4);
}

export function fmtNumber(x: number | null, digits = 1): string {
  if (x === null) return DASH;
  return x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function fmtRatio(x: number | null): string {
  return x === null ? DASH : `${x.toFixed(2)}×`;
}

export function fmtCost(x: number | null): string {
  return x === null ? DASH : `$${x.toFixed(4)}`;
}
