import { fmtInterval, fmtPercent, fmtPoints } from "../format-cells.js";
import type { Report } from "../report-schema.js";
import { esc } from "./escape.js";

/**
 * The page's first screen: per configuration the gap (large), its interval and test, both rates, the pairs
 * and, in one sentence, the smallest gap they can detect. Everything else of the page comes below it.
 */
export function headlineHtml(report: Report): string {
  const cards = report.configs.map((c) => {
    const h = c.headline;
    const p = h.mcnemar_p === null ? "–" : h.mcnemar_p < 0.0001 ? "&lt; 0.0001" : `= ${h.mcnemar_p.toFixed(4)}`;
    const warning = c.power.warning === null ? "" : `<p class="meta warn">Warning: ${esc(c.power.warning)}.</p>`;
    return `<div class="headline-card">
<p class="headline-who"><strong>${esc(c.label)}</strong> <span class="muted">run ${esc(h.run)}</span></p>
<p class="headline-gap">gap <strong>${esc(fmtPoints(h.gap))}</strong> points <span class="muted">95% CI ${esc(fmtInterval(h.ci95))} · McNemar p ${p}</span></p>
<p class="headline-rates">uninterrupted <strong>${esc(fmtPercent(h.uninterrupted))}</strong> → switched <strong>${esc(fmtPercent(h.switched))}</strong> resolved · ${h.pairs} pairs</p>
<p class="meta power">${esc(h.power.charAt(0).toUpperCase() + h.power.slice(1))}</p>${warning}
</div>`;
  });
  return `<section id="headline" aria-label="result">\n${cards.join("\n")}\n</section>`;
}
