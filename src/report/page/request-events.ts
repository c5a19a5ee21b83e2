/** One request's model and tool calls, files changed and signature marks, as the expanded timeline row shows them. */
import type { Clipped, ViewerEvent, ViewerRequest } from "../viewer/session-log-types.js";
import { COLORS, el, fmtInt } from "./dom.js";
import { signatureTitle, type Mark } from "./page-data.js";

const foldAt = 600;

/** Long text folded: the first lines, and a button for the rest (what the viewer keeps; the file has it all). */
export function folded(c: Clipped, cls = "fold"): HTMLElement {
  const more =
    c.length > c.text.length
      ? el("p", { class: "note" }, `… ${fmtInt(c.length - c.text.length)} more characters in trajectory.jsonl`)
      : null;
  if (c.text.length <= foldAt) return el("div", null, [el("pre", { class: cls }, c.text), more]);
  const pre = el("pre", { class: `${cls} folded` }, `${c.text.slice(0, foldAt)}…`);
  const btn = el("button", { type: "button", class: "unfold", "aria-expanded": "false" }, `show all ${fmtInt(c.text.length)} characters`);
  btn.addEventListener("click", () => {
    const open = btn.getAttribute("aria-expanded") !== "true";
    pre.textContent = open ? c.text : `${c.text.slice(0, foldAt)}…`;
    pre.classList.toggle("folded", !open);
    btn.setAttribute("aria-expanded", String(open));
    btn.textContent = open ? "fold" : `show all ${fmtInt(c.text.length)} characters`;
  });
  return el("div", null, [pre, btn, more]);
}

function oneLine(c: Clipped | null): string {
  if (!c) return "";
  const t = c.text.replace(/\s+/g, " ").trim();
  return t.length > 80 ? `${t.slice(0, 79)}…` : t;
}

function eventNode(e: ViewerEvent, i: number): HTMLElement {
  switch (e.kind) {
    case "model_call":
      return el(
        "li",
        { class: "ev ev-model" },
        `model call${e.model ? ` · ${e.model}` : ""} · ${fmtInt(e.tokens_in)} in · ${fmtInt(e.tokens_out)} out${e.cost_usd !== null ? ` · $${e.cost_usd.toFixed(4)}` : ""}${e.auxiliary ? " · auxiliary" : ""}`,
      );
    case "tool_call": {
      const summary = el("summary", null, [
        el("strong", null, e.name),
        e.status ? ` · ${e.status}` : "",
        e.args ? el("span", { class: "muted" }, ` ${oneLine(e.args)}`) : null,
      ]);
      const d = el("details", { class: "ev ev-tool tool-call", "data-event": i }, summary);
      // Rendered when opened: a request may hold hundreds of calls.
      d.addEventListener("toggle", () => {
        if (!(d as HTMLDetailsElement).open || d.childElementCount > 1) return;
        if (e.paths.length > 0) d.appendChild(el("p", { class: "note" }, `paths: ${e.paths.join(", ")}`));
        d.appendChild(el("div", { class: "ev-label" }, "arguments"));
        d.appendChild(e.args ? folded(e.args, "tool-args") : el("p", { class: "note" }, "none recorded"));
        d.appendChild(el("div", { class: "ev-label" }, "result"));
        d.appendChild(e.output ? folded(e.output, "tool-output") : el("p", { class: "note" }, "none recorded"));
      });
      return el("li", null, d);
    }
    case "text":
      return el("li", { class: "ev ev-text" }, folded(e.text));
    case "error":
      return el("li", { class: "ev ev-error" }, [el("strong", null, "error: "), folded(e.message)]);
    case "context":
      return el("li", { class: "ev ev-text note" }, e.summary);
  }
}

function changedFiles(req: ViewerRequest, ownWs: string): HTMLElement | null {
  const ws = Object.keys(req.changed).sort();
  if (ws.length === 0) return el("p", { class: "note" }, "No file changed (or no per-request evidence recorded).");
  return el(
    "ul",
    { class: "changed" },
    ws.map((w) =>
      el("li", { class: w === ownWs ? "" : "other-ws", "data-workspace": w }, [
        el("span", { class: "sw", style: `background:${COLORS[w] ?? "#999"}` }),
        `${w}${w === ownWs ? "" : " (not this request's workspace)"}: `,
        (req.changed[w] ?? []).map((f) => `${f.path}${f.before === null ? " (new)" : f.after === null ? " (deleted)" : ""}`).join(", "),
      ]),
    ),
  );
}

export function markList(marks: readonly Mark[]): HTMLElement {
  return el(
    "ul",
    { class: "marks" },
    marks.map((m) =>
      el("li", { class: `mark mark-${m.signature}`, "data-signature": m.signature }, [
        el("strong", null, signatureTitle[m.signature]),
        `: ${m.detail}`,
      ]),
    ),
  );
}

export function requestBody(req: ViewerRequest | undefined, ownWs: string, text: string, marks: readonly Mark[]): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (marks.length > 0) out.push(markList(marks));
  out.push(el("div", { class: "ev-label" }, "request"), folded(req?.message ?? { text, length: text.length }, "request-msg"));
  if (!req) {
    out.push(el("p", { class: "note" }, "Not delivered (no request in the trajectory)."));
    return out;
  }
  out.push(el("div", { class: "ev-label" }, "files changed"));
  const files = changedFiles(req, ownWs);
  if (files) out.push(files);
  out.push(el("div", { class: "ev-label" }, `model and tool calls (${req.events.length})`));
  out.push(el("ol", { class: "events" }, req.events.map(eventNode)));
  return out;
}
