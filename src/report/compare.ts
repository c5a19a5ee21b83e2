import { groupNames, type ByGroup, type Comparison, type ComparisonGroup, type ConfigReport } from "./report-schema.js";
import { gapOf, pairedGapDifferenceCI, signFlipExactP, type BootstrapOptions, type Pair } from "./stats.js";

/** Per focus task (pair id): [uninterrupted resolved, switched resolved], and its locality. */
export function pairsOf(c: Pick<ConfigReport, "sessions">): Map<string, { pair: [boolean, boolean]; locality: string }> {
  const out = new Map<string, { pair: [boolean, boolean]; locality: string }>();
  for (const s of c.sessions) {
    let e = out.get(s.pair);
    if (!e) out.set(s.pair, (e = { pair: [false, false], locality: s.locality }));
    e.pair[s.condition === "base" ? 0 : 1] = s.status === "resolved";
  }
  return out;
}

/**
 * Configuration A against B over the focus tasks both ran (same pair id); groups by A's locality.
 * gap_difference = gap(A) − gap(B) on the common tasks, with a paired bootstrap CI. Pure.
 */
export function compareConfigs(a: ConfigReport, b: ConfigReport, opts: BootstrapOptions = {}): Comparison {
  const pa = pairsOf(a);
  const pb = pairsOf(b);
  const groups = {} as ByGroup<ComparisonGroup>;
  for (const g of groupNames) {
    const common: Array<{ a: Pair; b: Pair }> = [];
    for (const [id, ea] of pa) {
      const eb = pb.get(id);
      if (!eb || (g !== "overall" && ea.locality !== g)) continue;
      common.push({ a: ea.pair, b: eb.pair });
    }
    const ga = gapOf(common.map((x) => x.a));
    const gb = gapOf(common.map((x) => x.b));
    groups[g] = {
      n_common: common.length,
      a: ga,
      b: gb,
      gap_difference: ga.gap === null || gb.gap === null ? null : ga.gap - gb.gap,
      ci95: pairedGapDifferenceCI(common, opts),
      p_value: signFlipExactP(common.map(({ a, b }) => 100 * (Number(a[0]) - Number(a[1]) - (Number(b[0]) - Number(b[1]))))),
    };
  }
  return { a: a.label, b: b.label, groups };
}
