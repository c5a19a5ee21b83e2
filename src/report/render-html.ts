import { dirname, relative, resolve, sep } from "node:path";
import { gapChart, resolutionChart, tokenRatioChart } from "./html/charts.js";
import { esc, scriptJson } from "./html/escape.js";
import { costChart, failureChart } from "./html/figures.js";
import { pageScript } from "./html/page-script.js";
import { css } from "./html/style.js";
import { headlineHtml } from "./html/headline-html.js";
import type { Report } from "./report-schema.js";
import type { Section } from "./section.js";
import { reportSections } from "./sections.js";
import { inputsSection } from "./sections-inputs.js";
import { markedSignatureNames } from "./report-schema.js";
import { viewerData } from "./viewer/viewer-data.js";

export interface HtmlOptions {
  /** Where the page will be written; links to run files are made relative to its directory. Default: ./report.html */
  outFile?: string;
  /** The report as embedded and shown (shareableReport: no absolute path); default: the report itself. */
  shared?: Report;
}

/** The run directory as a relative URL from the page's directory ("" when they are the same). */
export function relativeLink(fromDir: string, runDir: string): string {
  const rel = relative(fromDir, runDir);
  return rel
    .split(sep)
    .filter((p) => p !== "")
    .map(encodeURIComponent)
    .join("/");
}

function sectionHtml(s: Section): string {
  const head = s.columns.map((c) => `<th${c.align === "right" ? ' class="num"' : ""}>${esc(c.header)}</th>`).join("");
  const body = s.rows
    .map((r) => `<tr>${s.columns.map((c, i) => `<td${c.align === "right" ? ' class="num"' : ""}>${esc(r[i] ?? "")}</td>`).join("")}</tr>`)
    .join("\n");
  const table =
    s.rows.length > 0
      ? `<div class="table-wrap"><table id="table-${esc(s.id)}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`
      : "";
  return `<h3 id="${esc(s.id)}">${esc(s.title)}</h3>\n${table}\n${s.notes.map((n) => `<p class="note">${esc(n)}</p>`).join("\n")}`;
}

/** Shown in the header (the result first, then the inputs), not again among the tables. */
const inHeader = new Set(["headline", "inputs", "in-one-line"]);

const statusOptions = ["not run", "not finalized", "no verdict", "infra fault", "did not apply", "tests failed", "suspicious"];
const categoryOptions = ["implementation", "submission", "incomplete_execution"];

/** One self-contained page: inline CSS, inline script, inline data, inline SVG; nothing is fetched. */
export function renderHtml(local: Report, opts: HtmlOptions = {}): string {
  const outDir = dirname(resolve(opts.outFile ?? "report.html"));
  // Links and the session viewer read the run directories through their real paths; the page shows only names.
  const links = local.configs.map((c) => relativeLink(outDir, c.run_dir));
  const viewer = viewerData(local);
  const report = opts.shared ?? local;
  const labels = report.configs.map((c) => esc(c.label)).join(" · ");
  const multi = report.configs.length > 1;
  const csp =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>switch-swe report — ${labels}</title>
<link rel="icon" href="data:,">
<style>${css}</style>
</head>
<body>
<header>
<h1>switch-swe report</h1>
${headlineHtml(report)}
<p class="meta">${report.configs.map((c) => `<strong>${esc(c.label)}</strong> — run ${esc(c.headline.run)} (${c.sessions_file.pairs} focus tasks, dataset ${esc(c.dataset.name ?? "?")} ${esc(c.dataset.version ?? "")})`).join("<br>")}</p>
<p class="meta">Bootstrap: ${report.bootstrap.resamples} resamples, seed ${report.bootstrap.seed}, percentile 95% interval.</p>
${sectionHtml(inputsSection(report))}
<nav><a href="#charts">Charts</a><a href="#tables">Tables</a><a href="#sessions">Sessions</a></nav>
</header>
<main>
<h2 id="charts">Charts</h2>
<div class="charts">
<figure><figcaption>Resolution by condition</figcaption>${resolutionChart(report)}</figure>
<figure><figcaption>Resumption gap with 95% CI</figcaption>${gapChart(report)}</figure>
<figure><figcaption>Token ratios</figcaption>${tokenRatioChart(report)}</figure>
<figure><figcaption>Resolution against cost (Figure 1a)</figcaption>${costChart(report)}</figure>
<figure><figcaption>Outcome categories (Figure 1b)</figcaption>${failureChart(report)}</figure>
</div>
<h2 id="tables">Tables</h2>
${reportSections(report, { catalogue: true })
  .filter((s) => !inHeader.has(s.id))
  .map(sectionHtml)
  .join("\n")}
<h2 id="sessions">Sessions</h2>
<p class="note">Select a session to see its schedule, its requests (model and tool calls, files changed, signatures marked) and its verdict; the pair view sets it beside the other condition's session. Keys: ↑/↓ in a list, Enter to open, j/k next/previous session, p pair view, o the other condition. Every view has an address (the URL fragment). Links are relative to this page.</p>
<div class="sessions-layout">
<div>
<div class="filters">
<input id="session-filter" type="search" placeholder="filter sessions" aria-label="filter sessions">
<select id="session-status" aria-label="status">
<option value="">all</option><option value="resolved">resolved</option><option value="unresolved">unresolved</option>
${statusOptions.map((r) => `<option value="reason:${esc(r)}">${esc(r)}</option>`).join("")}
${categoryOptions.map((c) => `<option value="category:${esc(c)}">failure: ${esc(c.replace("_", " "))}</option>`).join("")}
${markedSignatureNames.map((m) => `<option value="mark:${esc(m)}">marked: ${esc(m.replace(/_/g, " "))}</option>`).join("")}
</select>
<span id="session-count" class="meta"></span>
</div>
<div class="session-list"><table><thead><tr>${multi ? "<th>Configuration</th>" : ""}<th>Session</th><th>Locality</th><th>Status</th><th class="num">Tokens</th><th class="num" title="signatures marked on its requests">Marks</th></tr></thead><tbody id="session-rows"></tbody></table></div>
</div>
<div id="session-detail" class="detail"><p class="empty">No session selected.</p></div>
</div>
</main>
<script type="application/json" id="report-data">${scriptJson({ report, links })}</script>
<script type="application/json" id="viewer-data">${scriptJson(viewer)}</script>
<script type="module">${pageScript()}</script>
</body>
</html>
`;
}
