/**
 * The report page's only script, compiled by tsc (tsconfig.page.json, DOM types) into
 * dist/report-page/ and inlined by render-html.ts. It reads the report from the inline JSON block and
 * renders the per-session view. Every piece of data reaches the DOM through textContent or
 * setAttribute, never through innerHTML, so task texts and test ids cannot inject markup.
 */
import type { ConfigReport, Report, SessionEntry } from "../report-schema.js";

interface PageData {
  report: Report;
  links: string[];
}

type Step = SessionEntry["schedule"][number];
type Attrs = Record<string, string | number | null | undefined> | null;
type Child = Node | string | number | null | undefined;

interface Row {
  ci: number;
  key: string;
  s: SessionEntry;
}

const WS = ["w00", "w01", "w02", "w03", "w04"] as const;
const COLORS: Record<string, string> = { w00: "#4e79a7", w01: "#f28e2b", w02: "#59a14f", w03: "#b07aa1", w04: "#76b7b2" };
const SVGNS = "http://www.w3.org/2000/svg";

function byId<T extends HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`report page: #${id} missing`);
  return e as T;
}

const data = JSON.parse(byId("report-data").textContent ?? "{}") as PageData;
const report = data.report;

function setAll(e: Element, attrs: Attrs): void {
  if (!attrs) return;
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) e.setAttribute(k, String(v));
}

function append(e: Element, children: Child | Child[]): void {
  const list = Array.isArray(children) ? children : [children];
  for (const c of list) {
    if (c === null || c === undefined) continue;
    e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

function el(tag: string, attrs: Attrs = null, children: Child | Child[] = null): HTMLElement {
  const e = document.createElement(tag);
  setAll(e, attrs);
  append(e, children);
  return e;
}

function svgEl(tag: string, attrs: Attrs = null, children: Child | Child[] = null): SVGElement {
  const e = document.createElementNS(SVGNS, tag);
  setAll(e, attrs);
  append(e, children);
  return e;
}

const fmtInt = (x: number | null | undefined): string => (x === null || x === undefined ? "–" : Math.round(x).toLocaleString("en-US"));
const encPath = (p: string): string => p.split("/").map(encodeURIComponent).join("/");

const rows: Row[] = report.configs.flatMap((c, ci) => c.sessions.map((s) => ({ ci, key: `${ci}/${s.id}`, s })));
const byKey = new Map(rows.map((r) => [r.key, r]));

const tbody = byId<HTMLTableSectionElement>("session-rows");
const filterText = byId<HTMLInputElement>("session-filter");
const filterStatus = byId<HTMLSelectElement>("session-status");
const detail = byId<HTMLDivElement>("session-detail");
const count = byId<HTMLSpanElement>("session-count");
const multi = report.configs.length > 1;
let selected: string | null = null;

function matches(r: Row): boolean {
  const q = filterText.value.trim().toLowerCase();
  const st = filterStatus.value;
  if (st === "resolved" && r.s.status !== "resolved") return false;
  if (st === "unresolved" && r.s.status === "resolved") return false;
  if (st.startsWith("reason:") && r.s.reason !== st.slice(7)) return false;
  if (st.startsWith("category:") && r.s.failure_category !== st.slice(9)) return false;
  if (!q) return true;
  const hay = `${r.s.id} ${r.s.locality} ${r.s.reason ?? ""} ${report.configs[r.ci]!.label}`.toLowerCase();
  return hay.includes(q);
}

function renderList(): void {
  tbody.textContent = "";
  let shown = 0;
  for (const r of rows) {
    if (!matches(r)) continue;
    shown++;
    const s = r.s;
    const tr = el("tr", { tabindex: "0", "data-key": r.key, class: `session-row${selected === r.key ? " selected" : ""}` }, [
      multi ? el("td", null, report.configs[r.ci]!.label) : null,
      el("td", null, s.id),
      el("td", null, s.locality),
      el("td", { class: `status-${s.status}` }, s.status === "resolved" ? "resolved" : (s.reason ?? "unresolved")),
      el("td", { class: "num" }, s.usage ? fmtInt(s.usage.tokens) : "–"),
    ]);
    tbody.appendChild(tr);
  }
  count.textContent = `${shown} of ${rows.length} sessions`;
}

function rowFromEvent(ev: Event): Element | null {
  let t = ev.target as Node | null;
  while (t && t !== tbody && !(t instanceof Element && t.getAttribute("data-key"))) t = t.parentNode;
  return t && t !== tbody ? (t as Element) : null;
}

function requestText(c: ConfigReport, step: Step): string {
  if (step.kind === "finalization") return "(finalization: finish the task and prepare it for evaluation)";
  return c.request_texts[step.task]?.[String(step.stage)] ?? "";
}

function timelineLanes(svg: SVGElement, s: SessionEntry, left: number, top: number, laneH: number, width: number): void {
  WS.forEach((w, li) => {
    const y = top + li * laneH;
    const task = s.workspaces[w] ?? "";
    const role = task === s.focus ? " (focus)" : "";
    svg.appendChild(svgEl("rect", { x: left, y, width, height: laneH - 2, fill: li % 2 ? "#fafbfc" : "#f3f5f7" }));
    const max = role ? 16 : 24;
    const shown = task.length > max ? `${task.slice(0, max - 1)}…` : task;
    svg.appendChild(svgEl("text", { x: 4, y: y + 15 }, [svgEl("title", null, `${w} = ${task}${role}`), `${w} ${shown}${role}`]));
  });
}

function timelineBlock(c: ConfigReport, step: Step, i: number, x: number, y: number, bw: number, laneH: number): SVGElement {
  const label = `#${i + 1} · ${step.workspace} · ${step.task} · ${step.kind === "finalization" ? "finalization" : `stage ${step.stage}`}${step.focus_return ? " · focus return" : ""}`;
  const text = requestText(c, step);
  const g = svgEl("g", { class: "tl-step", "data-index": i });
  const focus = step.role === "focus";
  const tip = label + (text ? `\n${text.length > 400 ? `${text.slice(0, 400)}…` : text}` : "");
  g.appendChild(
    svgEl("rect", { class: "tl-block", x: x + 1, y, width: bw - 2, height: laneH - 4, rx: 2, fill: COLORS[step.workspace] ?? "#999", stroke: focus ? "#1d232b" : "none", "stroke-width": focus ? 1.5 : 0 }, svgEl("title", null, tip)),
  );
  if (bw >= 14) {
    g.appendChild(svgEl("text", { x: x + bw / 2, y: y + 14, "text-anchor": "middle", fill: "#fff", style: "fill:#fff;pointer-events:none" }, step.kind === "finalization" ? "F" : String(step.stage)));
  }
  if (step.focus_return) g.appendChild(svgEl("path", { class: "tl-return", d: `M${x + 1} ${y} l7 0 l-7 7 z`, fill: "#1d232b" }));
  return g;
}

function timeline(c: ConfigReport, s: SessionEntry): HTMLElement {
  const n = s.schedule.length;
  const left = 200;
  const laneH = 24;
  const top = 16;
  const room = Math.max(240, (detail.clientWidth || 900) - left - 50);
  const bw = Math.max(12, Math.min(30, Math.floor(room / Math.max(1, n))));
  const width = left + n * bw + 10;
  const height = top + WS.length * laneH + 4;
  const svg = svgEl("svg", { id: "session-timeline", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `Schedule timeline of ${s.id}` });
  timelineLanes(svg, s, left, top, laneH, n * bw);
  for (let i = 0; i < n; i += Math.max(1, Math.ceil(n / 12))) {
    svg.appendChild(svgEl("text", { x: left + i * bw + bw / 2, y: 11, "text-anchor": "middle", class: "muted" }, String(i + 1)));
  }
  s.schedule.forEach((step, i) => {
    const lane = WS.indexOf(step.workspace);
    svg.appendChild(timelineBlock(c, step, i, left + i * bw, top + lane * laneH + 1, bw, laneH));
  });
  const note = "One block per request, in delivery order (number = stage, F = finalization); outlined = focus task; dark corner = focus return.";
  return el("div", null, [svg, el("p", { class: "note" }, note)]);
}

function kv(label: string, value: Child): HTMLElement {
  return el("div", null, [el("strong", null, `${label}: `), value]);
}

function summaryLines(r: Row): void {
  const c = report.configs[r.ci]!;
  const s = r.s;
  const base = data.links[r.ci] ?? "";
  detail.appendChild(el("h3", null, s.id + (multi ? ` — ${c.label}` : "")));
  detail.appendChild(kv("Status", el("span", { class: `status-${s.status}` }, s.status + (s.reason ? ` (${s.reason})` : ""))));
  if (s.detail) detail.appendChild(kv("Detail", s.detail));
  if (s.failure_category) detail.appendChild(kv("Failure category", s.failure_category));
  if (s.signatures) detail.appendChild(kv("Signatures", signatureText(s.signatures)));
  detail.appendChild(kv("Condition", `${s.condition === "base" ? "uninterrupted" : "switched"} · ${s.locality} · focus ${s.focus}`));
  detail.appendChild(
    kv("Requests", `${s.requests.delivered} delivered of ${s.requests.scheduled} scheduled · ${s.workspace_switches} workspace switches · ${s.focus_returns} focus returns · attempts ${s.attempts} · timeouts ${s.timeouts} · continuations ${s.continuations}`),
  );
  const u = s.usage;
  if (u) {
    const cost = u.cost_usd !== null ? ` · $${u.cost_usd.toFixed(4)}` : "";
    const aux = u.auxiliary_model_calls ? ` · auxiliary ${fmtInt(u.auxiliary_tokens)} tokens` : "";
    detail.appendChild(kv("Usage", `${fmtInt(u.tokens)} tokens · ${u.model_calls} model calls · ${u.tool_calls} tool calls${cost} · resumed focus stages ${fmtInt(u.resumed_focus_tokens)} tokens${aux}`));
  }
  const links = el("div", { class: "links" });
  for (const [name, file] of [["trajectory.jsonl", s.files.trajectory], ["artifact.patch", s.files.artifact]] as const) {
    if (file) links.appendChild(el("a", { href: (base ? `${base}/` : "") + encPath(file), class: "file-link" }, name));
    else links.appendChild(el("span", { class: "muted" }, `no ${name} `));
  }
  detail.appendChild(kv("Files", links));
}

function signatureText(sig: NonNullable<SessionEntry["signatures"]>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(sig)) {
    if (v === null) parts.push(`${k.replace(/_/g, " ")}: unavailable`);
    else if (v === true || (typeof v === "number" && v > 0)) parts.push(`${k.replace(/_/g, " ")}${typeof v === "number" ? ` ${v}` : ""}`);
  }
  return parts.length > 0 ? parts.join(" · ") : "none";
}

function scheduleSection(r: Row): void {
  const c = report.configs[r.ci]!;
  const s = r.s;
  detail.appendChild(el("h3", null, "Schedule"));
  const legend = el("div", { class: "legend" });
  for (const w of WS) {
    const task = s.workspaces[w];
    legend.appendChild(el("span", null, [el("span", { class: "sw", style: `background:${COLORS[w]}` }), `${w} = ${task ?? "?"}${task === s.focus ? " (focus)" : ""}`]));
  }
  detail.appendChild(legend);
  detail.appendChild(el("div", { class: "table-wrap" }, timeline(c, s)));
  const reqRows = s.schedule.map((step, i) =>
    el("tr", null, [
      el("td", { class: "num" }, String(i + 1)),
      el("td", null, step.workspace),
      el("td", null, step.task),
      el("td", null, step.role),
      el("td", null, step.kind === "finalization" ? "finalization" : `stage ${step.stage}`),
      el("td", null, step.focus_return ? "yes" : ""),
      el("td", { class: "request-text" }, requestText(c, step)),
    ]),
  );
  const head = el("thead", null, el("tr", null, ["#", "Workspace", "Task", "Role", "Request", "Focus return", "Text"].map((h) => el("th", null, h))));
  const table = el("table", { id: "session-requests" }, [head, el("tbody", null, reqRows)]);
  detail.appendChild(el("details", null, [el("summary", null, `Requests (${s.schedule.length})`), el("div", { class: "table-wrap" }, table)]));
}

function verdictSection(s: SessionEntry): void {
  detail.appendChild(el("h3", null, "Verdict"));
  const v = s.verdict;
  if (!v) {
    detail.appendChild(el("p", { class: "note" }, `No verdict${s.reason ? ` (${s.reason})` : ""}.`));
    return;
  }
  const applied = v.applied ? `yes (${v.apply_method ?? "?"})` : "no";
  const failed = s.failed_stages && s.failed_stages.length ? ` · failed stages: ${s.failed_stages.join(", ")}` : "";
  detail.appendChild(
    el("p", null, `${v.resolved ? "resolved" : "not resolved"} · applied: ${applied} · F2P ${v.fail_to_pass.passed}/${v.fail_to_pass.total} · P2P ${v.pass_to_pass.passed}/${v.pass_to_pass.total}${v.infra_fault ? " · infrastructure fault" : ""}${v.timed_out ? " · timed out" : ""}${failed}`),
  );
  const tests = v.tests.slice().sort((a, b) => (a.kind ?? "~").localeCompare(b.kind ?? "~") || (a.stage ?? 0) - (b.stage ?? 0) || a.id.localeCompare(b.id));
  const head = el("thead", null, el("tr", null, ["Test", "Kind", "Stage", "Status"].map((h) => el("th", null, h))));
  const body = el(
    "tbody",
    null,
    tests.map((t) => el("tr", null, [el("td", null, t.id), el("td", null, t.kind ?? "?"), el("td", { class: "num" }, t.stage === null ? "" : String(t.stage)), el("td", { class: `t-${t.status}` }, t.status)])),
  );
  detail.appendChild(el("div", { class: "table-wrap" }, el("table", { id: "session-tests" }, [head, body])));
}

function select(key: string | null): void {
  const r = key === null ? undefined : byKey.get(key);
  if (!r) return;
  selected = r.key;
  for (const tr of Array.from(tbody.querySelectorAll("tr"))) tr.classList.toggle("selected", tr.getAttribute("data-key") === r.key);
  detail.textContent = "";
  summaryLines(r);
  scheduleSection(r);
  verdictSection(r.s);
  try {
    history.replaceState(null, "", `#session=${encodeURIComponent(r.key)}`);
  } catch {
    // file: URLs may refuse
  }
}

tbody.addEventListener("click", (ev) => select(rowFromEvent(ev)?.getAttribute("data-key") ?? null));
tbody.addEventListener("keydown", (ev) => {
  if (ev.key !== "Enter" && ev.key !== " ") return;
  const tr = rowFromEvent(ev);
  if (!tr) return;
  ev.preventDefault();
  select(tr.getAttribute("data-key"));
});
filterText.addEventListener("input", renderList);
filterStatus.addEventListener("change", renderList);

renderList();
const m = /^#session=(.+)$/.exec(location.hash);
if (m) select(decodeURIComponent(m[1]!));
