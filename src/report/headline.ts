import { basename } from "node:path";
import { detectableGapLine } from "../core/power.js";
import { fmtInterval, fmtPercent, fmtPoints } from "./format-cells.js";
import type { ConfigReport, Headline } from "./report-schema.js";
import { L, R, type Section } from "./section.js";

/** "p < 0.0001" or "p = 0.0625": a p value as a reader writes it in a sentence. */
function pSentence(p: number | null): string {
  if (p === null) return "McNemar p –";
  return p < 0.0001 ? "McNemar p < 0.0001" : `McNemar p = ${p.toFixed(4)}`;
}

/** The result of one configuration in one sentence: rates, gap, its interval and test, pairs. */
function headlineText(label: string, run: string, h: Omit<Headline, "text" | "power">): string {
  const who = label === run ? label : `${label} (${run})`;
  if (h.gap === null) return `${who}: no focus task to score.`;
  return `${who}: ${fmtPercent(h.uninterrupted)} resolved uninterrupted, ${fmtPercent(h.switched)} switched: a gap of ${fmtPoints(h.gap)} points (95% CI ${fmtInterval(h.ci95)}, ${pSentence(h.mcnemar_p)}) over ${h.pairs} pairs.`;
}

/**
 * What a reader looks for first, per configuration: the overall rates, the gap with its interval and
 * test, and the pairs with the smallest gap they can detect. The run is named by its directory's name,
 * never its absolute path, so a shared report does not carry the machine's layout.
 */
export function headlineOf(c: Pick<ConfigReport, "label" | "run_dir" | "groups" | "power">): Headline {
  const g = c.groups.overall;
  const run = basename(c.run_dir);
  const figures = {
    run,
    pairs: g.n,
    uninterrupted: g.uninterrupted,
    switched: g.switched,
    gap: g.gap,
    ci95: g.ci95,
    mcnemar_p: g.mcnemar_p,
    min_detectable_gap: c.power.groups.overall.min_detectable_gap,
  };
  return { ...figures, text: headlineText(c.label, run, figures), power: `${detectableGapLine(c.power.groups.overall)}.` };
}

/** The first section of the table and markdown reports. */
export function headlineSection(configs: readonly ConfigReport[]): Section {
  return {
    id: "headline",
    title: "Result: the resumption gap",
    notes: [
      ...configs.map((c) => (configs.length > 1 ? `${c.label}: ${c.headline.power}` : `Power: ${c.headline.power}`)),
      ...configs.flatMap((c) =>
        c.power.warning === null ? [] : [`Warning: ${configs.length > 1 ? `${c.label}: ` : ""}${c.power.warning}.`],
      ),
      "Gap = uninterrupted − switched resolution, in percentage points; the sections below give the inputs, near and far, and why sessions failed.",
    ],
    columns: [L("Configuration"), L("Run"), R("Pairs"), R("Uninterrupted"), R("Switched"), R("Gap (pp)"), R("95% CI"), R("McNemar p")],
    rows: configs.map((c) => {
      const h = c.headline;
      return [
        c.label,
        h.run,
        String(h.pairs),
        fmtPercent(h.uninterrupted),
        fmtPercent(h.switched),
        fmtPoints(h.gap),
        fmtInterval(h.ci95),
        h.mcnemar_p === null ? "–" : h.mcnemar_p < 0.0001 ? "<0.0001" : h.mcnemar_p.toFixed(4),
      ];
    }),
  };
}

/** The last lines of the table and markdown reports: each configuration's result again, in one sentence. */
export function closingSection(configs: readonly ConfigReport[]): Section {
  return { id: "in-one-line", title: "In one line", notes: configs.map((c) => c.headline.text), columns: [], rows: [] };
}
