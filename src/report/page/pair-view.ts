/** The pair view: the uninterrupted and switched sessions of one focus side by side, aligned on the focus requests. */
import type { SessionLog } from "../viewer/session-log-types.js";
import { COLORS, el } from "./dom.js";
import { byKey, multi, report, roleName, type Mark, type Row, type Step } from "./page-data.js";
import { markBadges, requestFigures, stepLabel } from "./request-timeline.js";
import { sessionLog } from "./session-log.js";
import { sessionHash, verdictLine } from "./session-detail.js";

interface Line {
  base: number | null;
  sw: number | null;
  /** Interruption requests of the switched session before this focus request. */
  between: number[];
}

const sameRequest = (a: Step, b: Step) => a.task === b.task && a.kind === b.kind && a.stage === b.stage;

/** One line per focus request of either session; the switched session's interruptions ride on the next focus line. */
export function alignPair(base: readonly Step[], sw: readonly Step[]): Line[] {
  const lines: Line[] = [];
  const usedBase = new Set<number>();
  let between: number[] = [];
  sw.forEach((step, i) => {
    if (step.role !== "focus") {
      between.push(i);
      return;
    }
    const b = base.findIndex((x, j) => !usedBase.has(j) && sameRequest(x, step));
    if (b >= 0) usedBase.add(b);
    lines.push({ base: b >= 0 ? b : null, sw: i, between });
    between = [];
  });
  if (between.length > 0) lines.push({ base: null, sw: null, between });
  base.forEach((_, j) => {
    if (!usedBase.has(j)) lines.push({ base: j, sw: null, between: [] });
  });
  return lines;
}

function cell(r: Row, log: SessionLog | null, i: number | null): HTMLElement {
  if (i === null) return el("div", { class: "pair-cell empty" }, "");
  const step = r.s.schedule[i]!;
  const marks: Mark[] = r.s.signature_marks.filter((m) => m.request === i);
  return el("div", { class: `pair-cell${marks.length ? " marked" : ""}`, "data-index": i }, [
    el("a", { href: sessionHash(r.key, i), class: "pair-req" }, `#${i + 1} ${stepLabel(step)}`),
    el("span", { class: "ws", style: `border-color:${COLORS[step.workspace] ?? "#999"}` }, step.workspace),
    markBadges(marks),
    el("div", { class: "req-fig" }, requestFigures(log?.requests.find((q) => q.index === i))),
  ]);
}

function interruptionsCell(r: Row, log: SessionLog | null, between: number[]): HTMLElement {
  return el(
    "div",
    { class: "pair-cell between" },
    between.map((i) => {
      const step = r.s.schedule[i]!;
      const marks = r.s.signature_marks.filter((m) => m.request === i);
      const req = log?.requests.find((q) => q.index === i);
      return el("div", null, [
        el("a", { href: sessionHash(r.key, i) }, `#${i + 1}`),
        ` ${roleName(r.s, step)} · ${step.workspace} · ${stepLabel(step)} · ${req ? `${req.tool_calls} tool` : "not delivered"}`,
        markBadges(marks),
      ]);
    }),
  );
}

function testsThatDiffer(base: Row, sw: Row): HTMLElement {
  const a = new Map((base.s.verdict?.tests ?? []).map((t) => [t.id, t]));
  const b = new Map((sw.s.verdict?.tests ?? []).map((t) => [t.id, t]));
  const ids = [...new Set([...a.keys(), ...b.keys()])].filter((id) => a.get(id)?.status !== b.get(id)?.status).sort();
  if (ids.length === 0)
    return el(
      "p",
      { class: "note", id: "pair-tests" },
      base.s.verdict && sw.s.verdict ? "No test differs." : "A verdict is missing: no tests to compare.",
    );
  const head = el(
    "thead",
    null,
    el(
      "tr",
      null,
      ["Test", "Kind", "Stage", "Uninterrupted", "Switched"].map((h) => el("th", null, h)),
    ),
  );
  const rows = ids.map((id) => {
    const t = a.get(id) ?? b.get(id)!;
    const sa = a.get(id)?.status ?? "absent";
    const sb = b.get(id)?.status ?? "absent";
    return el("tr", null, [
      el("td", null, id),
      el("td", null, t.kind ?? "?"),
      el("td", { class: "num" }, t.stage === null ? "" : String(t.stage)),
      el("td", { class: `t-${sa}` }, sa),
      el("td", { class: `t-${sb}` }, sb),
    ]);
  });
  return el("div", { class: "table-wrap" }, el("table", { id: "pair-tests" }, [head, el("tbody", null, rows)]));
}

function side(r: Row, title: string): HTMLElement {
  return el("div", { class: "pair-side" }, [
    el("a", { href: sessionHash(r.key), class: "pair-session" }, title),
    el("div", { class: `status-${r.s.status}` }, verdictLine(r.s)),
  ]);
}

/** Renders the pair `ci/pairId` into `detail`; false when there is no such pair. */
export async function showPair(detail: HTMLElement, pairKey: string): Promise<boolean> {
  const [ci, pairId] = [pairKey.slice(0, pairKey.indexOf("/")), pairKey.slice(pairKey.indexOf("/") + 1)];
  const base = byKey.get(`${ci}/${pairId}.base`);
  const sw = byKey.get(`${ci}/${pairId}.switch`);
  if (!base || !sw) return false;
  detail.textContent = "";
  const label = multi ? ` — ${report.configs[Number(ci)]!.label}` : "";
  detail.appendChild(el("h3", { id: "pair-title" }, `Pair ${pairId}${label}: uninterrupted and switched`));
  detail.appendChild(
    el("div", { class: "pair-grid pair-verdicts" }, [side(base, `${base.s.id} (uninterrupted)`), side(sw, `${sw.s.id} (switched)`)]),
  );
  detail.appendChild(el("h3", null, "Tests that differ"));
  detail.appendChild(testsThatDiffer(base, sw));
  detail.appendChild(el("h3", null, "Requests, aligned on the focus requests"));
  const slot = el("div", null, el("p", { class: "note" }, "Reading the trajectories…"));
  detail.appendChild(slot);
  const [lb, ls] = await Promise.all([sessionLog(base.key), sessionLog(sw.key)]);
  slot.textContent = "";
  const lines = alignPair(base.s.schedule, sw.s.schedule);
  const grid = el("div", { class: "pair-grid", id: "pair-requests" }, [
    el("div", { class: "pair-h" }, "uninterrupted"),
    el("div", { class: "pair-h" }, "switched"),
  ]);
  for (const line of lines) {
    if (line.between.length > 0) grid.append(el("div", { class: "pair-cell empty" }, ""), interruptionsCell(sw, ls, line.between));
    if (line.base !== null || line.sw !== null) grid.append(cell(base, lb, line.base), cell(sw, ls, line.sw));
  }
  slot.appendChild(grid);
  return true;
}
