import { pairsOf } from "./compare.js";
import { groupNames, type ByGroup, type ConfigReport, type RcmTable } from "./report-schema.js";
import { bootstrapMeanCI, type BootstrapOptions, type Pair } from "./stats.js";

type Group = RcmTable["groups"]["overall"];

const mean = (xs: readonly number[]): number | null => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
const pct = (b: boolean) => (b ? 100 : 0);

/** A statistic that is a mean over focus tasks, with its percentile bootstrap CI (same seed for every one: paired). */
function meanCi(values: readonly number[], opts: BootstrapOptions) {
  return { value: mean(values), ci95: bootstrapMeanCI(values, opts) };
}
const rate = (values: readonly number[], opts: BootstrapOptions) => {
  const m = meanCi(values, opts);
  return { rate: m.value, ci95: m.ci95 };
};
const points = (values: readonly number[], opts: BootstrapOptions) => {
  const m = meanCi(values, opts);
  return { points: m.value, ci95: m.ci95 };
};

/**
 * The paper's Table 3 from a native run and one or more RCM runs of the same sessions: the native
 * run's uninterrupted (base) and switched resolution and its gap, and per RCM run its switched
 * resolution (+RCM), its own gap, what it recovered (+RCM − switch) and the gap left (base − +RCM).
 * Every figure is over the focus tasks all runs ran (same pair id), grouped by the native run's
 * locality; CIs are percentile bootstraps over those tasks, differences paired. Pure.
 */
export function rcmTable(native: ConfigReport, rcm: readonly ConfigReport[], opts: BootstrapOptions = {}): RcmTable {
  const pn = pairsOf(native);
  const pr = rcm.map(pairsOf);
  const groups = {} as ByGroup<Group>;
  for (const g of groupNames) {
    const ids = [...pn.keys()].filter((id) => (g === "overall" || pn.get(id)!.locality === g) && pr.every((p) => p.has(id)));
    const nat: Pair[] = ids.map((id) => pn.get(id)!.pair);
    groups[g] = {
      n_common: ids.length,
      base: rate(
        nat.map(([b]) => pct(b)),
        opts,
      ),
      switch: rate(
        nat.map(([, s]) => pct(s)),
        opts,
      ),
      gap: points(
        nat.map(([b, s]) => pct(b) - pct(s)),
        opts,
      ),
      rcm: rcm.map((c, k) => {
        const arm: Pair[] = ids.map((id) => pr[k]!.get(id)!.pair);
        return {
          label: c.label,
          uninterrupted: rate(
            arm.map(([b]) => pct(b)),
            opts,
          ),
          switched: rate(
            arm.map(([, s]) => pct(s)),
            opts,
          ),
          gap: points(
            arm.map(([b, s]) => pct(b) - pct(s)),
            opts,
          ),
          recovered: points(
            arm.map(([, s], i) => pct(s) - pct(nat[i]![1])),
            opts,
          ),
          remaining_gap: points(
            arm.map(([, s], i) => pct(nat[i]![0]) - pct(s)),
            opts,
          ),
        };
      }),
    };
  }
  return { native: native.label, rcm: rcm.map((c) => c.label), groups };
}
