/**
 * The report page's script, compiled by tsc (tsconfig.page.json, DOM types) into dist/report-page/ and
 * inlined by render-html.ts (its sibling modules joined by html/page-script.ts). It reads the report from the
 * inline JSON block and renders the session list, the session viewer and the pair view on demand. Every
 * piece of data reaches the DOM through textContent or setAttribute, never through innerHTML, so task texts,
 * tool output and test ids cannot inject markup.
 *
 * Addresses (the URL fragment): #session=CONFIG/SESSION[&request=N] and #pair=CONFIG/PAIR.
 */
import { arrowNav, byId, el, fmtInt } from "./dom.js";
import { byKey, configOf, multi, partnerOf, rows, type Row } from "./page-data.js";
import { showPair } from "./pair-view.js";
import { pairHash, sessionHash, showSession } from "./session-detail.js";

const tbody = byId<HTMLTableSectionElement>("session-rows");
const filterText = byId<HTMLInputElement>("session-filter");
const filterStatus = byId<HTMLSelectElement>("session-status");
const detail = byId<HTMLDivElement>("session-detail");
const count = byId<HTMLSpanElement>("session-count");
let selected: string | null = null;

function matches(r: Row): boolean {
  const q = filterText.value.trim().toLowerCase();
  const st = filterStatus.value;
  if (st === "resolved" && r.s.status !== "resolved") return false;
  if (st === "unresolved" && r.s.status === "resolved") return false;
  if (st.startsWith("reason:") && r.s.reason !== st.slice(7)) return false;
  if (st.startsWith("category:") && r.s.failure_category !== st.slice(9)) return false;
  if (st.startsWith("mark:") && !r.s.signature_marks.some((m) => m.signature === st.slice(5))) return false;
  if (!q) return true;
  const hay = `${r.s.id} ${r.s.locality} ${r.s.reason ?? ""} ${configOf(r).label}`.toLowerCase();
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
      multi ? el("td", null, configOf(r).label) : null,
      el("td", null, s.id),
      el("td", null, s.locality),
      el("td", { class: `status-${s.status}` }, s.status === "resolved" ? "resolved" : (s.reason ?? "unresolved")),
      el("td", { class: "num" }, s.usage ? fmtInt(s.usage.tokens) : "–"),
      el("td", { class: "num" }, s.signature_marks.length ? String(s.signature_marks.length) : ""),
    ]);
    tbody.appendChild(tr);
  }
  count.textContent = `${shown} of ${rows.length} sessions`;
}

function rowFromEvent(ev: Event): HTMLElement | null {
  return (ev.target as Element).closest<HTMLElement>("tr[data-key]");
}

function markSelected(key: string | null): void {
  selected = key;
  for (const tr of Array.from(tbody.querySelectorAll("tr"))) tr.classList.toggle("selected", tr.getAttribute("data-key") === key);
}

/** Shows what the URL fragment names; an unknown address leaves the page as it is. */
function route(): void {
  const params = new URLSearchParams(location.hash.slice(1));
  const session = params.get("session");
  const pair = params.get("pair");
  if (session !== null) {
    const r = byKey.get(session);
    if (!r) return;
    markSelected(r.key);
    const n = Number(params.get("request"));
    void showSession(detail, r, Number.isInteger(n) && n >= 1 ? n - 1 : null);
  } else if (pair !== null) {
    void showPair(detail, pair).then((ok) => ok && markSelected(null));
  }
}

function go(hash: string): void {
  if (location.hash === hash) route();
  else location.hash = hash;
}

/** j/k: next or previous session of the filtered list; p: the pair view of the open session (or back). */
function pageKeys(ev: KeyboardEvent): void {
  const t = ev.target as HTMLElement;
  if (ev.ctrlKey || ev.metaKey || ev.altKey || t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA") return;
  const params = new URLSearchParams(location.hash.slice(1));
  const current = byKey.get(params.get("session") ?? "") ?? byKey.get(`${params.get("pair") ?? ""}.switch`);
  if (ev.key === "j" || ev.key === "k") {
    const keys = Array.from(tbody.querySelectorAll("tr")).map((tr) => tr.getAttribute("data-key")!);
    const i = current ? keys.indexOf(current.key) : -1;
    const next = keys[ev.key === "j" ? i + 1 : Math.max(0, i - 1)];
    if (next) go(sessionHash(next));
  } else if (ev.key === "p" && current) {
    go(params.has("pair") ? sessionHash(current.key) : pairHash(current));
  } else if (ev.key === "o" && current) {
    const other = partnerOf(current);
    if (other) go(sessionHash(other.key));
  }
}

tbody.addEventListener("click", (ev) => {
  const key = rowFromEvent(ev)?.getAttribute("data-key");
  if (key) go(sessionHash(key));
});
tbody.addEventListener("keydown", (ev) => {
  const tr = rowFromEvent(ev);
  if (!tr) return;
  if (arrowNav(ev, Array.from(tbody.querySelectorAll<HTMLElement>("tr")), tr)) return;
  if (ev.key !== "Enter" && ev.key !== " ") return;
  ev.preventDefault();
  go(sessionHash(tr.getAttribute("data-key")!));
});
filterText.addEventListener("input", renderList);
filterStatus.addEventListener("change", renderList);
window.addEventListener("hashchange", route);
document.addEventListener("keydown", pageKeys);

renderList();
route();
