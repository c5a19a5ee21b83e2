/** A session's requests as a timeline: one row per scheduled request, each expandable to what happened in it. */
import type { SessionLog, ViewerRequest } from "../viewer/session-log-types.js";
import { arrowNav, COLORS, el, fmtInt, fmtMs } from "./dom.js";
import { configOf, requestText, roleName, signatureTitle, type Mark, type Row, type Step } from "./page-data.js";
import { requestBody } from "./request-events.js";

export function stepLabel(step: Step): string {
  return step.kind === "finalization" ? "finalization" : `stage ${step.stage}`;
}

/** The one-line figures of a request: wall time, tokens in/out, model and tool calls, models. */
export function requestFigures(req: ViewerRequest | undefined): string {
  if (!req) return "not delivered";
  const cont = req.deliveries > 1 ? ` · ${req.deliveries} deliveries` : "";
  const out = req.outcome && req.outcome !== "yielded" ? ` · ${req.outcome}` : "";
  return `${fmtMs(req.duration_ms)} · ${fmtInt(req.tokens_in)} in / ${fmtInt(req.tokens_out)} out · ${req.model_calls} model · ${req.tool_calls} tool${req.models.length ? ` · ${req.models.join(", ")}` : ""}${cont}${out}`;
}

export function markBadges(marks: readonly Mark[]): HTMLElement | null {
  if (marks.length === 0) return null;
  const kinds = [...new Set(marks.map((m) => m.signature))];
  return el(
    "span",
    { class: "badges" },
    kinds.map((k) => el("span", { class: `badge mark-${k}`, "data-signature": k, title: signatureTitle[k] }, signatureTitle[k])),
  );
}

/** Row contents not built yet: built when the row first opens. */
const pending = new WeakMap<Element, () => void>();

function requestItem(r: Row, log: SessionLog | null, step: Step, i: number, marks: readonly Mark[]): HTMLElement {
  const req = log?.requests.find((q) => q.index === i);
  const head = el("button", { type: "button", class: "req-head", "aria-expanded": "false", "data-index": i }, [
    el("span", { class: "req-n" }, `#${i + 1}`),
    el("span", { class: `role role-${step.role}` }, roleName(r.s, step)),
    el("span", { class: "ws", style: `border-color:${COLORS[step.workspace] ?? "#999"}` }, step.workspace),
    el("span", { class: "req-task" }, `${step.task} · ${stepLabel(step)}${step.focus_return ? " · focus return" : ""}`),
    el("span", { class: "req-fig" }, requestFigures(req)),
    markBadges(marks),
  ]);
  const body = el("div", { class: "req-body", hidden: "" });
  const li = el("li", { class: `req${marks.length ? " marked" : ""}`, "data-index": i }, [head, body]);
  head.addEventListener("click", () => toggleRequest(li));
  pending.set(li, () => body.append(...requestBody(req, step.workspace, requestText(configOf(r), step), marks)));
  return li;
}

/** Opens or closes one request row (its contents are built the first time). */
export function toggleRequest(li: Element, open?: boolean): void {
  const head = li.querySelector<HTMLElement>(".req-head");
  const body = li.querySelector<HTMLElement>(".req-body");
  if (!head || !body) return;
  const willOpen = open ?? head.getAttribute("aria-expanded") !== "true";
  const fill = pending.get(li);
  if (willOpen && fill) {
    pending.delete(li);
    fill();
  }
  head.setAttribute("aria-expanded", String(willOpen));
  body.hidden = !willOpen;
}

export function requestTimeline(r: Row, log: SessionLog | null): HTMLElement {
  const marksAt = new Map<number, Mark[]>();
  for (const m of r.s.signature_marks) if (m.request !== null) marksAt.set(m.request, [...(marksAt.get(m.request) ?? []), m]);
  const list = el(
    "ol",
    { id: "request-timeline", class: "requests" },
    r.s.schedule.map((step, i) => requestItem(r, log, step, i, marksAt.get(i) ?? [])),
  );
  list.addEventListener("keydown", (ev) => {
    const t = ev.target as HTMLElement;
    if (!t.classList.contains("req-head")) return;
    arrowNav(ev, Array.from(list.querySelectorAll<HTMLElement>(".req-head")), t);
  });
  return list;
}
