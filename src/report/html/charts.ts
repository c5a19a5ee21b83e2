import { groupNames, type Report } from "../report-schema.js";
import { esc } from "./escape.js";

/** Inline SVG charts drawn from the report. Pure string builders: no DOM, no libraries. */

const palette = ["#2f6db5", "#d9730d", "#2e8b57", "#8e44ad", "#c0392b", "#16a085", "#7f8c8d"];
const groupTitle = { overall: "Overall", near: "Near", far: "Far" } as const;

export function configColor(i: number): string {
  return palette[i % palette.length]!;
}

export function shorten(s: string, max = 30): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

const f1 = (x: number) => x.toFixed(1);

/** Grouped bars: per group a cluster, per configuration two bars (uninterrupted solid, switched light). */
export function resolutionChart(report: Report): string {
  const k = report.configs.length;
  const barW = 16;
  const clusterW = k * (2 * barW + 8) + 24;
  const left = 40;
  const top = 14;
  const h = 180;
  const width = Math.max(left + groupNames.length * clusterW + 10, 300);
  const height = top + h + 30 + k * 16;
  const y = (pct: number) => top + h - (h * pct) / 100;
  const parts: string[] = [];
  for (const t of [0, 25, 50, 75, 100]) {
    parts.push(`<line class="grid" x1="${left}" x2="${width - 10}" y1="${y(t)}" y2="${y(t)}"/>`);
    parts.push(`<text class="muted" x="${left - 4}" y="${y(t) + 4}" text-anchor="end">${t}%</text>`);
  }
  groupNames.forEach((g, gi) => {
    const x0 = left + gi * clusterW + 12;
    report.configs.forEach((c, ci) => {
      const r = c.groups[g];
      (["uninterrupted", "switched"] as const).forEach((cond, j) => {
        const v = r[cond];
        const x = x0 + ci * (2 * barW + 8) + j * barW;
        const val = v ?? 0;
        const title = `${c.label} · ${groupTitle[g]} · ${cond}: ${v === null ? "no sessions" : `${f1(val)}% (${r.resolved[cond]}/${r.n})`}`;
        parts.push(
          `<rect class="bar res-bar" data-config="${ci}" data-group="${g}" data-condition="${cond}" x="${x}" y="${y(val)}" width="${barW - 2}" height="${(h * val) / 100}" fill="${configColor(ci)}" fill-opacity="${j === 0 ? 1 : 0.45}"><title>${esc(title)}</title></rect>`,
        );
      });
    });
    parts.push(`<text x="${x0 + (k * (2 * barW + 8)) / 2 - 4}" y="${top + h + 16}" text-anchor="middle">${groupTitle[g]}</text>`);
  });
  parts.push(`<line class="axis" x1="${left}" x2="${width - 10}" y1="${y(0)}" y2="${y(0)}"/>`);
  report.configs.forEach((c, ci) => {
    const lx = left;
    const ly = top + h + 36 + ci * 16;
    parts.push(
      `<rect x="${lx}" y="${ly - 9}" width="10" height="10" fill="${configColor(ci)}"/><rect x="${lx + 12}" y="${ly - 9}" width="10" height="10" fill="${configColor(ci)}" fill-opacity="0.45"/>`,
      `<text x="${lx + 26}" y="${ly}">${esc(shorten(c.label, 34))}: uninterrupted | switched</text>`,
    );
  });
  return svg("chart-resolution", width, height, "Resolution by condition, per configuration and group", parts);
}

/** Gap (uninterrupted − switched) per configuration and group: a dot and its 95% CI whiskers. */
export function gapChart(report: Report): string {
  const rows = report.configs.flatMap((c, ci) => groupNames.map((g) => ({ c, ci, g, r: c.groups[g] })));
  let lo = -10;
  let hi = 10;
  for (const { r } of rows) {
    for (const v of [r.gap, r.ci95?.[0], r.ci95?.[1]]) {
      if (v === null || v === undefined) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  lo = Math.max(-100, Math.floor(lo / 10) * 10);
  hi = Math.min(100, Math.ceil(hi / 10) * 10);
  const left = 210;
  const plotW = 360;
  const rowH = 20;
  const top = 10;
  const height = top + rows.length * rowH + 34;
  const width = left + plotW + 20;
  const x = (v: number) => left + ((v - lo) / (hi - lo)) * plotW;
  const parts: string[] = [];
  const step = hi - lo > 100 ? 50 : hi - lo > 40 ? 20 : 10;
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) {
    parts.push(`<line class="${t === 0 ? "axis" : "grid"}" x1="${x(t)}" x2="${x(t)}" y1="${top}" y2="${top + rows.length * rowH}"/>`);
    parts.push(`<text class="muted" x="${x(t)}" y="${top + rows.length * rowH + 14}" text-anchor="middle">${t > 0 ? "+" : ""}${t}</text>`);
  }
  parts.push(
    `<text class="muted" x="${left + plotW / 2}" y="${top + rows.length * rowH + 28}" text-anchor="middle">gap, percentage points (uninterrupted − switched)</text>`,
  );
  rows.forEach(({ c, ci, g, r }, i) => {
    const cy = top + i * rowH + rowH / 2;
    parts.push(`<text x="${left - 8}" y="${cy + 4}" text-anchor="end">${esc(shorten(c.label, 24))} · ${groupTitle[g]}</text>`);
    if (r.ci95) {
      const [a, b] = r.ci95;
      parts.push(
        `<g class="gap-ci" data-config="${ci}" data-group="${g}"><line x1="${x(a)}" x2="${x(b)}" y1="${cy}" y2="${cy}" stroke="${configColor(ci)}" stroke-width="2"/><line x1="${x(a)}" x2="${x(a)}" y1="${cy - 5}" y2="${cy + 5}" stroke="${configColor(ci)}" stroke-width="2"/><line x1="${x(b)}" x2="${x(b)}" y1="${cy - 5}" y2="${cy + 5}" stroke="${configColor(ci)}" stroke-width="2"/></g>`,
      );
    }
    if (r.gap !== null) {
      const title = `${c.label} · ${groupTitle[g]}: gap ${f1(r.gap)} pp${r.ci95 ? `, 95% CI [${f1(r.ci95[0])}, ${f1(r.ci95[1])}]` : ""}, n=${r.n}`;
      parts.push(
        `<circle class="gap-dot" data-config="${ci}" data-group="${g}" cx="${x(r.gap)}" cy="${cy}" r="5" fill="${configColor(ci)}"><title>${esc(title)}</title></circle>`,
      );
    }
  });
  return svg("chart-gap", width, height, "Resumption gap with 95% bootstrap confidence interval", parts);
}

/** Token ratios per configuration: switched / uninterrupted and resumed focus stages / same stages uninterrupted. */
export function tokenRatioChart(report: Report): string {
  const series = [
    { key: "switched_over_uninterrupted", name: "switched / uninterrupted session" },
    { key: "resumed_focus_over_uninterrupted_same_stages", name: "resumed stages / same stages uninterrupted" },
  ] as const;
  let max = 2;
  for (const c of report.configs) for (const s of series) max = Math.max(max, c.workload.ratios[s.key].tokens ?? 0);
  max = Math.ceil(max * 1.1 * 2) / 2;
  const left = 210;
  const plotW = 320;
  const barH = 12;
  const top = 10;
  const rowsH = report.configs.length * (series.length * (barH + 3) + 10);
  const height = top + rowsH + 46;
  const width = left + plotW + 60;
  const x = (v: number) => left + (v / max) * plotW;
  const parts: string[] = [];
  const step = max > 6 ? 2 : max > 3 ? 1 : 0.5;
  for (let t = 0; t <= max + 1e-9; t += step) {
    parts.push(`<line class="${t === 1 ? "axis" : "grid"}" x1="${x(t)}" x2="${x(t)}" y1="${top}" y2="${top + rowsH}"/>`);
    parts.push(`<text class="muted" x="${x(t)}" y="${top + rowsH + 14}" text-anchor="middle">${t}×</text>`);
  }
  let y = top;
  report.configs.forEach((c, ci) => {
    parts.push(`<text x="${left - 8}" y="${y + barH}" text-anchor="end">${esc(shorten(c.label, 28))}</text>`);
    series.forEach((s, si) => {
      const v = c.workload.ratios[s.key].tokens;
      const title = `${c.label} · tokens ${s.name}: ${v === null ? "n/a" : `${v.toFixed(2)}×`}`;
      parts.push(
        `<rect class="bar ratio-bar" data-config="${ci}" data-series="${s.key}" x="${left}" y="${y}" width="${v === null ? 0 : x(v) - left}" height="${barH}" fill="${configColor(ci)}" fill-opacity="${si === 0 ? 1 : 0.45}"><title>${esc(title)}</title></rect>`,
      );
      if (v !== null) parts.push(`<text x="${x(v) + 4}" y="${y + barH - 2}">${v.toFixed(2)}×</text>`);
      y += barH + 3;
    });
    y += 10;
  });
  parts.push(
    `<rect x="${left}" y="${top + rowsH + 24}" width="10" height="10" fill="#777"/><text x="${left + 14}" y="${top + rowsH + 33}">${esc(series[0].name)}</text>`,
    `<rect x="${left}" y="${top + rowsH + 38}" width="10" height="10" fill="#777" fill-opacity="0.45"/><text x="${left + 14}" y="${top + rowsH + 47}">${esc(series[1].name)}</text>`,
  );
  return svg("chart-tokens", width, height + 6, "Token ratios", parts);
}

export function svg(id: string, width: number, height: number, title: string, parts: string[]): string {
  return `<svg id="${id}" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${esc(title)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join("")}</svg>`;
}
