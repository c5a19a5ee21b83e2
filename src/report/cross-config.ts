import { pairsOf } from "./compare.js";
import { groupNames, type ByGroup, type ConfigReport, type CrossConfig, type Figures } from "./report-schema.js";
import { bootstrapMeanGapCI, gapContributions, type BootstrapOptions } from "./stats.js";

/**
 * Across the configurations given: the mean of their gaps (each over its own focus tasks), the smallest
 * and largest gap, and a bootstrap CI of the mean that resamples each configuration's tasks. Pure.
 */
export function crossConfigSummary(configs: readonly ConfigReport[], opts: BootstrapOptions): ByGroup<CrossConfig> {
  const out = {} as ByGroup<CrossConfig>;
  for (const g of groupNames) {
    const gaps = configs.map((c) => c.groups[g].gap).filter((x): x is number => x !== null);
    const perConfig = configs.map((c) =>
      gapContributions([...pairsOf(c).values()].filter((e) => g === "overall" || e.locality === g).map((e) => e.pair)),
    );
    out[g] = {
      configs: gaps.length,
      mean_gap: gaps.length === 0 ? null : gaps.reduce((a, b) => a + b, 0) / gaps.length,
      min_gap: gaps.length === 0 ? null : Math.min(...gaps),
      max_gap: gaps.length === 0 ? null : Math.max(...gaps),
      // One configuration: the mean gap is its gap, and so is its interval (no second bootstrap).
      ci95: configs.length === 1 ? configs[0]!.groups[g].ci95 : bootstrapMeanGapCI(perConfig, opts),
    };
  }
  return out;
}

/** The data behind Figure 1a (resolution against mean tokens and cost) and 1b (failure categories). Pure. */
export function figuresData(configs: readonly ConfigReport[]): Figures {
  const fig: Figures = { resolution_vs_cost: [], failure_categories: [] };
  configs.forEach((c, config) => {
    for (const condition of ["base", "switch"] as const) {
      const usage = condition === "base" ? c.workload.uninterrupted : c.workload.switched;
      const g = c.groups.overall;
      fig.resolution_vs_cost.push({
        config,
        label: c.label,
        condition,
        sessions: g.n,
        resolution: condition === "base" ? g.uninterrupted : g.switched,
        tokens: usage.tokens,
        cost_usd: usage.cost_usd,
      });
      fig.failure_categories.push({ config, label: c.label, condition, ...c.failure_categories.overall[condition] });
    }
  });
  return fig;
}
