/** One session in the detail pane: summary, signatures marked, schedule, request timeline, verdict. */
import type { SessionEntry } from "../report-schema.js";
import { COLORS, el, encPath, fmtInt, kv, svgEl, WS } from "./dom.js";
import { configOf, multi, partnerOf, requestText, runLinks, signatureTitle, type Row, type Step } from "./page-data.js";
import { sessionLog } from "./session-log.js";
import { requestTimeline, stepLabel, toggleRequest } from "./request-timeline.js";

function signatureText(sig: SessionEntry["signatures"]): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(sig)) {
    if (v === null) parts.push(`${k.replace(/_/g, " ")}: unavailable`);
    else if (v === true || (typeof v === "number" && v > 0)) parts.push(`${k.replace(/_/g, " ")}${typeof v === "number" ? ` ${v}` : ""}`);
  }
  return parts.length > 0 ? parts.join(" · ") : "none";
}

export const sessionHash = (key: string, request?: number): string =>
  `#session=${encodeURIComponent(key)}${request === undefined ? "" : `&request=${request + 1}`}`;
export const pairHash = (r: Row): string => `#pair=${encodeURIComponent(`${r.ci}/${r.s.pair}`)}`;

function summaryLines(detail: HTMLElement, r: Row): void {
  const c = configOf(r);
  const s = r.s;
  const base = runLinks[r.ci] ?? "";
  const partner = partnerOf(r);
  detail.appendChild(
    el("div", { class: "detail-nav" }, [
      el("a", { href: pairHash(r), class: "pair-link" }, "pair view (p)"),
      partner
        ? el(
            "a",
            { href: sessionHash(partner.key), class: "partner-link" },
            `${partner.s.condition === "base" ? "uninterrupted" : "switched"} session of this focus`,
          )
        : null,
      el("span", { class: "muted" }, "keys: ↑/↓ requests · j/k sessions · p pair"),
    ]),
  );
  detail.appendChild(el("h3", null, s.id + (multi ? ` — ${c.label}` : "")));
  detail.appendChild(kv("Status", el("span", { class: `status-${s.status}` }, s.status + (s.reason ? ` (${s.reason})` : ""))));
  if (s.detail) detail.appendChild(kv("Detail", s.detail));
  if (s.failure_category) detail.appendChild(kv("Failure category", s.failure_category));
  detail.appendChild(kv("Signatures", signatureText(s.signatures)));
  detail.appendChild(kv("Condition", `${s.condition === "base" ? "uninterrupted" : "switched"} · ${s.locality} · focus ${s.focus}`));
  detail.appendChild(
    kv(
      "Requests",
      `${s.requests.delivered} delivered of ${s.requests.scheduled} scheduled · ${s.workspace_switches} workspace switches · ${s.focus_returns} focus returns · attempts ${s.attempts} · timeouts ${s.timeouts} · continuations ${s.continuations}`,
    ),
  );
  const u = s.usage;
  if (u) {
    const cost = u.cost_usd !== null ? ` · $${u.cost_usd.toFixed(4)}` : "";
    const aux = u.auxiliary_model_calls ? ` · auxiliary ${fmtInt(u.auxiliary_tokens)} tokens` : "";
    detail.appendChild(
      kv(
        "Usage",
        `${fmtInt(u.tokens)} tokens · ${u.model_calls} model calls · ${u.tool_calls} tool calls${cost} · resumed focus stages ${fmtInt(u.resumed_focus_tokens)} tokens${aux}`,
      ),
    );
  }
  const links = el("div", { class: "links" });
  for (const [name, file] of [
    ["trajectory.jsonl", s.files.trajectory],
    ["artifact.patch", s.files.artifact],
  ] as const) {
    if (file) links.appendChild(el("a", { href: (base ? `${base}/` : "") + encPath(file), class: "file-link" }, name));
    else links.appendChild(el("span", { class: "muted" }, `no ${name} `));
  }
  detail.appendChild(kv("Files", links));
}

function marksSection(detail: HTMLElement, r: Row): void {
  const marks = r.s.signature_marks;
  if (marks.length === 0) return;
  detail.appendChild(el("h3", null, `Signatures marked (${marks.length})`));
  detail.appendChild(
    el(
      "ul",
      { class: "marks", id: "session-marks" },
      marks.map((m) =>
        el("li", { class: `mark mark-${m.signature}`, "data-signature": m.signature }, [
          m.request === null
            ? "session: "
            : el("a", { href: sessionHash(r.key, m.request), class: "mark-link" }, `request #${m.request + 1}`),
          m.request === null ? null : ": ",
          el("strong", null, signatureTitle[m.signature]),
          ` — ${m.detail}`,
        ]),
      ),
    ),
  );
}

function timelineBlock(r: Row, step: Step, i: number, x: number, y: number, bw: number, laneH: number, marked: boolean): SVGElement {
  const label = `#${i + 1} · ${step.workspace} · ${step.task} · ${stepLabel(step)}${step.focus_return ? " · focus return" : ""}`;
  const text = requestText(configOf(r), step);
  const g = svgEl("g", { class: "tl-step", "data-index": i });
  const focus = step.role === "focus";
  const tip = label + (text ? `\n${text.length > 400 ? `${text.slice(0, 400)}…` : text}` : "");
  g.appendChild(
    svgEl(
      "rect",
      {
        class: "tl-block",
        x: x + 1,
        y,
        width: bw - 2,
        height: laneH - 4,
        rx: 2,
        fill: COLORS[step.workspace] ?? "#999",
        stroke: focus ? "#1d232b" : "none",
        "stroke-width": focus ? 1.5 : 0,
      },
      svgEl("title", null, tip),
    ),
  );
  if (bw >= 14) {
    g.appendChild(
      svgEl(
        "text",
        { x: x + bw / 2, y: y + 14, "text-anchor": "middle", fill: "#fff", style: "fill:#fff;pointer-events:none" },
        step.kind === "finalization" ? "F" : String(step.stage),
      ),
    );
  }
  if (step.focus_return) g.appendChild(svgEl("path", { class: "tl-return", d: `M${x + 1} ${y} l7 0 l-7 7 z`, fill: "#1d232b" }));
  if (marked)
    g.appendChild(svgEl("circle", { class: "tl-mark", cx: x + bw - 4, cy: y + laneH - 8, r: 3.5, fill: "#c62828", stroke: "#fff" }));
  return g;
}

function timeline(detail: HTMLElement, r: Row): HTMLElement {
  const s = r.s;
  const n = s.schedule.length;
  const left = 200;
  const laneH = 24;
  const top = 16;
  const room = Math.max(240, (detail.clientWidth || 900) - left - 50);
  const bw = Math.max(12, Math.min(30, Math.floor(room / Math.max(1, n))));
  const width = left + n * bw + 10;
  const height = top + WS.length * laneH + 4;
  const svg = svgEl("svg", {
    id: "session-timeline",
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": `Schedule timeline of ${s.id}`,
  });
  WS.forEach((w, li) => {
    const y = top + li * laneH;
    const task = s.workspaces[w] ?? "";
    const role = task === s.focus ? " (focus)" : "";
    svg.appendChild(svgEl("rect", { x: left, y, width: n * bw, height: laneH - 2, fill: li % 2 ? "#fafbfc" : "#f3f5f7" }));
    const max = role ? 16 : 24;
    const shown = task.length > max ? `${task.slice(0, max - 1)}…` : task;
    svg.appendChild(svgEl("text", { x: 4, y: y + 15 }, [svgEl("title", null, `${w} = ${task}${role}`), `${w} ${shown}${role}`]));
  });
  for (let i = 0; i < n; i += Math.max(1, Math.ceil(n / 12))) {
    svg.appendChild(svgEl("text", { x: left + i * bw + bw / 2, y: 11, "text-anchor": "middle", class: "muted" }, String(i + 1)));
  }
  const marked = new Set(s.signature_marks.map((m) => m.request));
  s.schedule.forEach((step, i) => {
    svg.appendChild(timelineBlock(r, step, i, left + i * bw, top + WS.indexOf(step.workspace) * laneH + 1, bw, laneH, marked.has(i)));
  });
  svg.addEventListener("click", (ev) => {
    const g = (ev.target as Element).closest("g.tl-step");
    if (g) location.hash = sessionHash(r.key, Number(g.getAttribute("data-index")));
  });
  const note =
    "One block per request, in delivery order (number = stage, F = finalization); outlined = focus task; dark corner = focus return; red dot = a signature marked. Select a block to open its request.";
  return el("div", null, [svg, el("p", { class: "note" }, note)]);
}

function scheduleSection(detail: HTMLElement, r: Row): void {
  const s = r.s;
  detail.appendChild(el("h3", null, "Schedule"));
  const legend = el("div", { class: "legend" });
  for (const w of WS) {
    const task = s.workspaces[w];
    legend.appendChild(
      el("span", null, [
        el("span", { class: "sw", style: `background:${COLORS[w]}` }),
        `${w} = ${task ?? "?"}${task === s.focus ? " (focus)" : ""}`,
      ]),
    );
  }
  detail.appendChild(legend);
  detail.appendChild(el("div", { class: "table-wrap" }, timeline(detail, r)));
}

export function testsTable(s: SessionEntry, id: string): HTMLElement {
  const v = s.verdict!;
  const tests = v.tests
    .slice()
    .sort((a, b) => (a.kind ?? "~").localeCompare(b.kind ?? "~") || (a.stage ?? 0) - (b.stage ?? 0) || a.id.localeCompare(b.id));
  const head = el(
    "thead",
    null,
    el(
      "tr",
      null,
      ["Test", "Kind", "Stage", "Status"].map((h) => el("th", null, h)),
    ),
  );
  const body = el(
    "tbody",
    null,
    tests.map((t) =>
      el("tr", null, [
        el("td", null, t.id),
        el("td", null, t.kind ?? "?"),
        el("td", { class: "num" }, t.stage === null ? "" : String(t.stage)),
        el("td", { class: `t-${t.status}` }, t.status),
      ]),
    ),
  );
  return el("div", { class: "table-wrap" }, el("table", { id }, [head, body]));
}

export function verdictLine(s: SessionEntry): string {
  const v = s.verdict;
  if (!v) return `No verdict${s.reason ? ` (${s.reason})` : ""}.`;
  const applied = v.applied ? `yes (${v.apply_method ?? "?"})` : "no";
  const failed = s.failed_stages && s.failed_stages.length ? ` · failed stages: ${s.failed_stages.join(", ")}` : "";
  return `${v.resolved ? "resolved" : "not resolved"} · applied: ${applied} · F2P ${v.fail_to_pass.passed}/${v.fail_to_pass.total} · P2P ${v.pass_to_pass.passed}/${v.pass_to_pass.total}${v.infra_fault ? " · infrastructure fault" : ""}${v.timed_out ? " · timed out" : ""}${failed}`;
}

function verdictSection(detail: HTMLElement, s: SessionEntry): void {
  detail.appendChild(el("h3", null, "Verdict"));
  detail.appendChild(el(s.verdict ? "p" : "p", s.verdict ? null : { class: "note" }, verdictLine(s)));
  if (s.verdict) detail.appendChild(testsTable(s, "session-tests"));
}

/** Renders session `r` into `detail`; `request` (schedule index) is opened and scrolled to once the log is in. */
export async function showSession(detail: HTMLElement, r: Row, request: number | null): Promise<void> {
  detail.textContent = "";
  summaryLines(detail, r);
  marksSection(detail, r);
  scheduleSection(detail, r);
  detail.appendChild(el("h3", null, `Requests (${r.s.schedule.length})`));
  const slot = el("div", { class: "requests-slot" }, el("p", { class: "note" }, "Reading the trajectory…"));
  detail.appendChild(slot);
  verdictSection(detail, r.s);
  const log = await sessionLog(r.key);
  slot.textContent = "";
  if (!log) slot.appendChild(el("p", { class: "note" }, "No trajectory recorded for this session: the schedule only."));
  slot.appendChild(requestTimeline(r, log));
  if (request !== null) {
    const li = slot.querySelector(`li.req[data-index="${request}"]`);
    if (li) {
      toggleRequest(li, true);
      li.scrollIntoView({ block: "start" });
      li.querySelector<HTMLElement>(".req-head")?.focus({ preventScroll: true });
    }
  }
}
