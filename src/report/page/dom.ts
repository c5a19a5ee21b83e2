/** DOM helpers of the report page. Every piece of data reaches the DOM as text or an attribute, never as markup. */

export type Attrs = Record<string, string | number | null | undefined> | null;
export type Child = Node | string | number | null | undefined;

export const WS = ["w00", "w01", "w02", "w03", "w04"] as const;
export const COLORS: Record<string, string> = { w00: "#4e79a7", w01: "#f28e2b", w02: "#59a14f", w03: "#b07aa1", w04: "#76b7b2" };
const SVGNS = "http://www.w3.org/2000/svg";

export function byId<T extends HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`report page: #${id} missing`);
  return e as T;
}

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

export function el(tag: string, attrs: Attrs = null, children: Child | Child[] = null): HTMLElement {
  const e = document.createElement(tag);
  setAll(e, attrs);
  append(e, children);
  return e;
}

export function svgEl(tag: string, attrs: Attrs = null, children: Child | Child[] = null): SVGElement {
  const e = document.createElementNS(SVGNS, tag);
  setAll(e, attrs);
  append(e, children);
  return e;
}

export const fmtInt = (x: number | null | undefined): string =>
  x === null || x === undefined ? "–" : Math.round(x).toLocaleString("en-US");
export const encPath = (p: string): string => p.split("/").map(encodeURIComponent).join("/");

export function fmtMs(ms: number | null): string {
  if (ms === null) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function kv(label: string, value: Child): HTMLElement {
  return el("div", null, [el("strong", null, `${label}: `), value]);
}

/** Moves focus among `items` with the arrow keys (and Home/End); returns true when it handled the key. */
export function arrowNav(ev: KeyboardEvent, items: readonly HTMLElement[], current: HTMLElement): boolean {
  const i = items.indexOf(current);
  if (i < 0) return false;
  const to =
    ev.key === "ArrowDown" ? i + 1 : ev.key === "ArrowUp" ? i - 1 : ev.key === "Home" ? 0 : ev.key === "End" ? items.length - 1 : -2;
  if (to === -2) return false;
  ev.preventDefault();
  items[Math.max(0, Math.min(items.length - 1, to))]?.focus();
  return true;
}
