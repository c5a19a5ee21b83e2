import { contextBinEdges } from "./analyses.js";
import { DASH, fmtInterval, fmtNumber, fmtPercent, fmtPoints, fmtRatio } from "./format-cells.js";
import type { Report } from "./report-schema.js";
import { L, R, type Section } from "./section.js";

/** The paper's remaining analyses as tables (docs/report-format.md, "The paper's analyses"). Pure. */

const kTokens = (n: number) => `${n / 1000}k`;

export function farMinusNearSection(report: Report): Section {
  return {
    id: "far-minus-near",
    title: "Far − near: does distance between the tasks widen the gap?",
    notes: [
      `Far − near = gap over far focus tasks − gap over near ones, in percentage points; 95% CI: percentile bootstrap that resamples far and near tasks apart (${report.bootstrap.resamples} resamples, seed ${report.bootstrap.seed}). – when either group has no pair.`,
    ],
    columns: [L("Configuration"), R("Near pairs"), R("Near gap"), R("Far pairs"), R("Far gap"), R("Far − near (pp)"), R("95% CI")],
    rows: report.configs.map((c) => {
      const d = c.far_minus_near;
      return [
        c.label,
        String(d.near.pairs),
        fmtPoints(d.near.gap),
        String(d.far.pairs),
        fmtPoints(d.far.gap),
        fmtPoints(d.difference),
        fmtInterval(d.ci95),
      ];
    }),
  };
}

export function resumedTokenRatioSection(report: Report): Section {
  return {
    id: "resumed-focus-token-ratio",
    title: "Resumed focus stages against the whole uninterrupted session (Table 2)",
    notes: [
      "Over pairs where both sessions ran: the mean tokens of the switched session's resumed focus stages (focus stages delivered right after other work, finalization excluded) as a multiple of the mean tokens of the whole uninterrupted session (the paper reports 1.41–2.95×). 95% CI: percentile bootstrap of the ratio of means, pairs resampled whole.",
    ],
    columns: [L("Configuration"), R("Pairs"), R("Resumed focus tokens"), R("Uninterrupted session tokens"), R("Ratio"), R("95% CI")],
    rows: report.configs.map((c) => {
      const r = c.resumed_focus_token_ratio;
      const ci = r.ci95 === null ? DASH : `[${fmtRatio(r.ci95[0])}, ${fmtRatio(r.ci95[1])}]`;
      return [c.label, String(r.pairs), fmtNumber(r.resumed_focus_tokens, 0), fmtNumber(r.uninterrupted_tokens, 0), fmtRatio(r.ratio), ci];
    }),
  };
}

export function contextSection(report: Report): Section {
  const binName = (from: number, to: number | null) =>
    to === null ? `≥ ${kTokens(from)}` : from === 0 ? `< ${kTokens(to)}` : `${kTokens(from)}–${kTokens(to)}`;
  return {
    id: "resolution-by-context",
    title: "Resolution by focus context size",
    notes: [
      `Each session that ran falls in one bin by the largest input (input + cached input + cache writes, in tokens) of one model call during a focus request, auxiliary calls left out; bins at ${contextBinEdges.slice(1).map(kTokens).join(", ")} (a peer found successful trajectories mostly under 20k). Resolved = share of the bin's sessions.`,
      ...report.configs
        .filter((c) => c.resolution_by_context.unmeasured.base + c.resolution_by_context.unmeasured.switch > 0)
        .map(
          (c) =>
            `${c.label}: ${c.resolution_by_context.unmeasured.base} uninterrupted and ${c.resolution_by_context.unmeasured.switch} switched sessions made no model call on the focus task (not binned).`,
        ),
    ],
    columns: [
      L("Configuration"),
      L("Focus context"),
      R("Uninterrupted sessions"),
      R("Uninterrupted resolved"),
      R("Switched sessions"),
      R("Switched resolved"),
    ],
    rows: report.configs.flatMap((c) =>
      c.resolution_by_context.bins.map((b) => [
        c.label,
        binName(b.from, b.to),
        String(b.base.sessions),
        fmtPercent(b.base.rate),
        String(b.switch.sessions),
        fmtPercent(b.switch.rate),
      ]),
    ),
  };
}

export function reuseSection(report: Report): Section {
  return {
    id: "interruption-reuse",
    title: "Interruption tasks reused across sessions",
    notes: [
      "Each switched session interleaves four other tasks; a task that interrupts many sessions ties their outcomes together. Places = interruptions in all; also focus = interruption tasks that are themselves a focus task.",
    ],
    columns: [
      L("Configuration"),
      R("Switched sessions"),
      R("Places"),
      R("Distinct tasks"),
      R("Also focus"),
      R("Sessions per task (median / max)"),
      L("Most used"),
    ],
    rows: report.configs.map((c) => {
      const u = c.interruption_reuse;
      return [
        c.label,
        String(u.switched_sessions),
        String(u.slots),
        String(u.distinct_tasks),
        String(u.also_focus),
        `${fmtNumber(u.uses.median)} / ${u.uses.max ?? DASH}`,
        u.most_used ? `${u.most_used.task} (${u.most_used.sessions})` : DASH,
      ];
    }),
  };
}

/** Appendix D: one table per distinct dataset (configurations that ran the same one share it). */
export function catalogueSections(report: Report): Section[] {
  const shown = new Set<string>();
  return report.configs.flatMap((c) => {
    const key = c.dataset.sha256 ?? c.sessions_file.sha256 ?? c.label;
    if (shown.has(key)) return [];
    shown.add(key);
    return [
      {
        id: shown.size === 1 ? "catalogue" : `catalogue-${shown.size}`,
        title: `Task catalogue: ${c.dataset.name ?? "dataset"} ${c.dataset.version ?? ""}`.trimEnd(),
        notes: [
          "Each focus task: its repository, locality, stages (tested = stages with an F2P test of their own), verifier size (F2P and P2P tests) and objective (the first request's first sentence).",
        ],
        columns: [L("Task"), L("Repository"), L("Locality"), R("Stages"), R("Tested"), R("F2P"), R("P2P"), L("Objective")],
        rows: c.catalogue.map((t) => [
          t.task,
          t.repo ?? DASH,
          t.locality,
          String(t.stages),
          String(t.tested_stages ?? DASH),
          String(t.f2p ?? DASH),
          String(t.p2p ?? DASH),
          t.objective,
        ]),
      },
    ];
  });
}

/** The analyses in the order a reader of the paper meets them. */
export function paperSections(report: Report): Section[] {
  return [farMinusNearSection(report), resumedTokenRatioSection(report), contextSection(report), reuseSection(report)];
}
