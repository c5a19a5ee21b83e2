import type { Report } from "./report-schema.js";
import type { Section } from "./section.js";
import { reportSections, type SectionOptions } from "./sections.js";

/** A cell that cannot break the table or inject markup: pipes, newlines and HTML-significant characters escaped. */
export function markdownCell(s: string): string {
  return s
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\r\n]+/g, " ");
}

function renderSection(section: Section): string {
  const out = [`### ${markdownCell(section.title)}`, ""];
  if (section.rows.length > 0) {
    out.push(`| ${section.columns.map((c) => markdownCell(c.header)).join(" | ")} |`);
    out.push(`|${section.columns.map((c) => (c.align === "right" ? "---:" : ":---")).join("|")}|`);
    for (const r of section.rows) out.push(`| ${section.columns.map((_, i) => markdownCell(r[i] ?? "")).join(" | ")} |`);
    out.push("");
  }
  for (const n of section.notes) out.push(`${markdownCell(n)}`, "");
  return out.join("\n");
}

/** Paste-ready GitHub-flavoured markdown. */
export function renderMarkdown(report: Report, opts: SectionOptions = {}): string {
  return `## switch-swe report\n\n${reportSections(report, opts).map(renderSection).join("\n")}`.replace(/\n{3,}/g, "\n\n");
}
