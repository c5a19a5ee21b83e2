import { groupNames, type Report } from "./report-schema.js";

export const csvColumns = [
  "label",
  "run_dir",
  "group",
  "n",
  "uninterrupted_resolved",
  "switched_resolved",
  "uninterrupted_pct",
  "switched_pct",
  "gap_pp",
  "ci95_low",
  "ci95_high",
  "mcnemar_p",
  "base_only",
  "switch_only",
  "earlier_stage_share_uninterrupted_pct",
  "earlier_stage_share_switched_pct",
  "tokens_ratio_switched_over_uninterrupted",
  "pairs_not_run",
  "sessions_sha256",
  "dataset_sha256",
] as const;

/** RFC 4180 field: quoted when it holds a comma, quote or line break; formula-leading characters neutralised. */
export function csvField(v: string | number | null): string {
  if (v === null) return "";
  let s = typeof v === "number" ? String(v) : v;
  if (typeof v === "string" && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One row per (configuration, group), full precision; empty fields for undefined values. */
export function renderCsv(report: Report): string {
  const lines = [csvColumns.join(",")];
  for (const c of report.configs) {
    for (const g of groupNames) {
      const r = c.groups[g];
      const att = c.stage_attribution.available ? c.stage_attribution.groups[g] : null;
      const row: Array<string | number | null> = [
        c.label,
        c.run_dir,
        g,
        r.n,
        r.resolved.uninterrupted,
        r.resolved.switched,
        r.uninterrupted,
        r.switched,
        r.gap,
        r.ci95?.[0] ?? null,
        r.ci95?.[1] ?? null,
        r.mcnemar_p,
        r.discordant.base_only,
        r.discordant.switch_only,
        att?.base.earlier_stage_share ?? null,
        att?.switch.earlier_stage_share ?? null,
        c.workload.ratios.switched_over_uninterrupted.tokens,
        c.pairs_run.not_run,
        c.sessions_file.sha256,
        c.dataset.sha256,
      ];
      lines.push(row.map(csvField).join(","));
    }
  }
  return `${lines.join("\r\n")}\r\n`;
}
