import type { Report } from "../report-schema.js";
import { configColor, shorten, svg } from "./charts.js";
import { esc } from "./escape.js";

/** The paper's Figure 1 from the report's `figures` data: pure SVG string builders. */

const f1 = (x: number) => x.toFixed(1);
const conditionTitle = { base: "uninterrupted", switch: "switched" } as const;

/** A round upper bound for an axis (1, 2, 2.5, 5 × 10^k). */
function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function fmtAxis(v: number, money: boolean): string {
  if (money) return `$${v < 1 ? v.toFixed(3) : v.toFixed(2)}`;
  return v >= 1e6 ? `${f1(v / 1e6)}M` : v >= 1e3 ? `${f1(v / 1e3)}k` : String(Math.round(v));
}

/**
 * Figure 1a: resolution (y) against mean cost per session (x), one point per configuration and condition
 * (circle = uninterrupted, square = switched), the two of a configuration joined. The x axis is money
 * when every point has a cost, else tokens.
 */
export function costChart(report: Report): string {
  const pts = report.figures.resolution_vs_cost;
  const money = pts.length > 0 && pts.every((p) => p.cost_usd !== null);
  const xv = (p: (typeof pts)[number]) => (money ? p.cost_usd : p.tokens);
  const maxX = niceMax(Math.max(0, ...pts.map((p) => xv(p) ?? 0)));
  const left = 50;
  const top = 12;
  const w = 360;
  const h = 200;
  const width = left + w + 30;
  const height = top + h + 44 + report.configs.length * 16;
  const x = (v: number) => left + (v / maxX) * w;
  const y = (pct: number) => top + h - (h * pct) / 100;
  const parts: string[] = [];
  for (const t of [0, 25, 50, 75, 100])
    parts.push(
      `<line class="grid" x1="${left}" x2="${left + w}" y1="${y(t)}" y2="${y(t)}"/><text class="muted" x="${left - 4}" y="${y(t) + 4}" text-anchor="end">${t}%</text>`,
    );
  for (let i = 0; i <= 4; i++)
    parts.push(
      `<text class="muted" x="${x((maxX * i) / 4)}" y="${top + h + 14}" text-anchor="middle">${fmtAxis((maxX * i) / 4, money)}</text>`,
    );
  parts.push(
    `<line class="axis" x1="${left}" x2="${left + w}" y1="${y(0)}" y2="${y(0)}"/><text class="muted" x="${left + w / 2}" y="${top + h + 30}" text-anchor="middle">${money ? "mean cost per session (USD)" : "mean tokens per session"}</text>`,
  );
  report.configs.forEach((c, ci) => {
    const mine = pts.filter((p) => p.config === ci && p.resolution !== null && xv(p) !== null);
    if (mine.length === 2)
      parts.push(
        `<line class="cost-link" x1="${x(xv(mine[0]!)!)}" y1="${y(mine[0]!.resolution!)}" x2="${x(xv(mine[1]!)!)}" y2="${y(mine[1]!.resolution!)}" stroke="${configColor(ci)}" stroke-dasharray="3 2"/>`,
      );
    for (const p of mine) {
      const cx = x(xv(p)!);
      const cy = y(p.resolution!);
      const title = `${c.label} · ${conditionTitle[p.condition]}: ${f1(p.resolution!)}% resolved, ${p.tokens === null ? "–" : Math.round(p.tokens).toLocaleString("en-US")} tokens${p.cost_usd === null ? "" : `, $${p.cost_usd.toFixed(4)}`} per session`;
      const attrs = `class="cost-point" data-config="${ci}" data-condition="${p.condition}" fill="${configColor(ci)}"`;
      parts.push(
        p.condition === "base"
          ? `<circle ${attrs} cx="${cx}" cy="${cy}" r="5"><title>${esc(title)}</title></circle>`
          : `<rect ${attrs} x="${cx - 4.5}" y="${cy - 4.5}" width="9" height="9"><title>${esc(title)}</title></rect>`,
      );
    }
    parts.push(
      `<circle cx="${left + 5}" cy="${top + h + 46 + ci * 16}" r="4" fill="${configColor(ci)}"/><rect x="${left + 13}" y="${top + h + 42 + ci * 16}" width="8" height="8" fill="${configColor(ci)}"/><text x="${left + 26}" y="${top + h + 50 + ci * 16}">${esc(shorten(c.label, 40))}: uninterrupted | switched</text>`,
    );
  });
  return svg("chart-cost", width, height, "Resolution against mean cost per session, per configuration and condition", parts);
}

const categories = [
  { key: "resolved", name: "resolved", color: "#59a14f" },
  { key: "implementation", name: "implementation", color: "#e15759" },
  { key: "submission", name: "submission", color: "#f28e2b" },
  { key: "incomplete_execution", name: "incomplete execution", color: "#9c755f" },
  { key: "not_scored", name: "not scored", color: "#bab0ac" },
] as const;

/** Figure 1b: per configuration and condition, a bar of its sessions stacked by outcome category (percent). */
export function failureChart(report: Report): string {
  const bars = report.figures.failure_categories;
  const left = 230;
  const w = 320;
  const barH = 14;
  const top = 10;
  const height = top + bars.length * (barH + 6) + 40;
  const width = left + w + 20;
  const parts: string[] = [];
  bars.forEach((b, i) => {
    const yy = top + i * (barH + 6);
    parts.push(
      `<text x="${left - 8}" y="${yy + barH - 2}" text-anchor="end">${esc(shorten(b.label, 26))} · ${conditionTitle[b.condition]}</text>`,
    );
    let x0 = left;
    for (const cat of categories) {
      const n = b[cat.key];
      if (n === 0 || b.sessions === 0) continue;
      const bw = (w * n) / b.sessions;
      const title = `${b.label} · ${conditionTitle[b.condition]} · ${cat.name}: ${n} of ${b.sessions} (${f1((100 * n) / b.sessions)}%)`;
      parts.push(
        `<rect class="bar fail-bar" data-config="${b.config}" data-condition="${b.condition}" data-category="${cat.key}" x="${x0}" y="${yy}" width="${bw}" height="${barH}" fill="${cat.color}"><title>${esc(title)}</title></rect>`,
      );
      x0 += bw;
    }
  });
  const ly = top + bars.length * (barH + 6) + 14;
  let lx = left - 120;
  for (const cat of categories) {
    parts.push(
      `<rect x="${lx}" y="${ly - 9}" width="10" height="10" fill="${cat.color}"/><text x="${lx + 13}" y="${ly}">${cat.name}</text>`,
    );
    lx += 22 + cat.name.length * 6.5;
  }
  return svg("chart-failures", Math.max(width, lx + 10), height, "Sessions by outcome category, per configuration and condition", parts);
}
