import type { Report } from "./report-schema.js";
import type { Section } from "./section.js";
import { reportSections, type SectionOptions } from "./sections.js";

/** Display width of a cell (one column per code point; good enough for the report's ASCII and symbols). */
function width(s: string): number {
  return [...s].length;
}

function pad(s: string, w: number, align: "left" | "right"): string {
  const fill = " ".repeat(Math.max(0, w - width(s)));
  return align === "right" ? fill + s : s + fill;
}

/** Control characters (ANSI escapes from task or agent text) never reach the terminal. */
function clean(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
}

/** Greedy word wrap for notes, so a terminal shows them as paragraphs. */
export function wrap(text: string, max: number): string[] {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line && width(line) + 1 + width(word) > max) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

export function renderSectionTable(section: Section): string {
  const lines = [section.title, "=".repeat(width(section.title))];
  if (section.rows.length > 0) {
    const rows = section.rows.map((r) => r.map(clean));
    const widths = section.columns.map((c, i) => Math.max(width(c.header), ...rows.map((r) => width(r[i] ?? ""))));
    const line = (cells: string[]) =>
      section.columns
        .map((c, i) => pad(cells[i] ?? "", widths[i]!, c.align))
        .join("  ")
        .trimEnd();
    lines.push(line(section.columns.map((c) => c.header)));
    lines.push(widths.map((w) => "-".repeat(w)).join("  "));
    for (const r of rows) lines.push(line(r));
  }
  for (const n of section.notes) lines.push(...wrap(clean(n), 100));
  return lines.join("\n");
}

/** Aligned plain text for a terminal. */
export function renderTable(report: Report, opts: SectionOptions = {}): string {
  return `${reportSections(report, opts).map(renderSectionTable).join("\n\n")}\n`;
}
