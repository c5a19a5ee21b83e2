import type { Report } from "./report-schema.js";
import type { Section } from "./section.js";

/** The report's "Handoff continuity" table: one row per configuration that cites its handoff score. */
export function handoffSection(report: Report): Section | null {
  const cited = report.configs.filter((c) => c.handoff);
  if (cited.length === 0) return null;
  const pts = (x: number) => x.toFixed(1);
  return {
    id: "handoff",
    title: "Handoff continuity (handoff score of the run's own sessions)",
    notes: [
      "Cases built by handoff from-run from this run's switched sessions (one per focus return); points out of 100, judge-free. " +
        "transcript = the conversation so far, memory = RCM's state record, handoff = a structured handoff of the same facts.",
    ],
    columns: [
      { header: "Configuration", align: "left" },
      { header: "Model", align: "left" },
      { header: "Cases", align: "right" },
      { header: "Transcript", align: "right" },
      { header: "Memory", align: "right" },
      { header: "Handoff", align: "right" },
      { header: "Overall", align: "right" },
      { header: "Problems", align: "right" },
      { header: "Scores file", align: "left" },
    ],
    rows: cited.map((c) => {
      const h = c.handoff!;
      return [
        c.label,
        [h.provider, h.model].filter(Boolean).join("/") || "–",
        String(h.cases),
        pts(h.conditions.transcript),
        pts(h.conditions.memory),
        pts(h.conditions.handoff),
        pts(h.overall),
        String(h.problems),
        h.scores_file,
      ];
    }),
  };
}
