/** The page's only stylesheet, inlined (no fonts or images fetched). */
export const css = `
:root { --fg:#1d232b; --muted:#5b6573; --line:#d7dce2; --bg:#fff; --alt:#f5f7f9; --accent:#2f6db5;
  --w00:#4e79a7; --w01:#f28e2b; --w02:#59a14f; --w03:#b07aa1; --w04:#76b7b2;
  --pass:#2e7d32; --fail:#c62828; --warn:#b26a00; }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
header, main { max-width: 1200px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 18px; border-bottom: 1px solid var(--line); }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
nav a { margin-right: 14px; color: var(--accent); text-decoration: none; }
nav { padding: 8px 0 12px; }
.meta { color: var(--muted); margin: 0 0 6px; }
#headline { display: flex; flex-wrap: wrap; gap: 12px; margin: 8px 0 12px; }
.headline-card { flex: 1 1 340px; min-width: 0; border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; background: var(--alt); }
.headline-card p { margin: 0 0 4px; overflow-wrap: anywhere; }
.headline-gap { font-size: 18px; }
.headline-gap strong { font-size: 28px; }
.headline-gap .muted { font-size: 14px; }
.charts { display: flex; flex-wrap: wrap; gap: 18px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 10px; background: var(--bg); max-width: 100%; overflow-x: auto; }
figcaption { font-weight: 600; margin-bottom: 6px; }
svg text { font: 11px system-ui, sans-serif; fill: var(--fg); }
figure svg { max-width: 100%; height: auto; }
svg .axis { stroke: #9aa4b1; stroke-width: 1; }
svg .grid { stroke: #e6e9ed; stroke-width: 1; }
svg .muted { fill: var(--muted); }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; margin: 4px 0 8px; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--alt); font-weight: 600; }
td.num, th.num { text-align: right; }
td.num { white-space: nowrap; }
tr:nth-child(even) td { background: #fafbfc; }
p.note { color: var(--muted); margin: 2px 0 6px; max-width: 900px; }
.sessions-layout { display: grid; grid-template-columns: minmax(340px, 460px) minmax(0, 1fr); gap: 16px; align-items: start; }
.session-list { max-height: 640px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
.session-list table { margin: 0; width: 100%; }
.session-list tr { cursor: pointer; }
.session-list tr:hover td, .session-list tr:focus td { background: #eef4fb; outline: none; }
.session-list tr.selected td { background: #dce9f7; }
.filters { display: flex; gap: 8px; margin-bottom: 8px; flex-wrap: wrap; }
.filters input, .filters select { font: inherit; padding: 3px 6px; }
.status-resolved { color: var(--pass); font-weight: 600; }
.status-unresolved { color: var(--fail); font-weight: 600; }
.t-passed { color: var(--pass); } .t-failed, .t-error { color: var(--fail); } .t-missing, .t-skipped, .t-timeout { color: var(--warn); }
.detail { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; min-height: 200px; overflow-x: auto; }
.detail td { word-break: break-word; }
.session-list td { white-space: nowrap; }
.session-list table { font-size: 13px; }
.detail .empty { color: var(--muted); }
.legend { display: flex; gap: 12px; flex-wrap: wrap; margin: 4px 0 8px; }
.legend span.sw { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -2px; margin-right: 4px; }
.request-text { white-space: pre-wrap; max-width: 640px; }
.links a { margin-right: 14px; }
.warn { color: var(--warn); }
.muted { color: var(--muted); }
.detail-nav { display: flex; gap: 14px; flex-wrap: wrap; font-size: 13px; margin-bottom: 4px; }
.detail-nav a, .detail a { color: var(--accent); }
ol.requests { list-style: none; padding: 0; margin: 4px 0 10px; border: 1px solid var(--line); border-radius: 6px; }
li.req { border-bottom: 1px solid var(--line); }
li.req:last-child { border-bottom: none; }
li.req.marked > .req-head { box-shadow: inset 3px 0 0 var(--fail); }
.req-head { all: unset; box-sizing: border-box; display: flex; flex-wrap: wrap; gap: 4px 10px; width: 100%; padding: 5px 8px; cursor: pointer; font-size: 13px; align-items: baseline; }
.req-head:hover, .req-head:focus-visible { background: #eef4fb; }
.req-head[aria-expanded="true"] { background: #dce9f7; }
.req-n { font-weight: 600; min-width: 2.4em; font-variant-numeric: tabular-nums; }
.role { font-size: 12px; padding: 0 5px; border-radius: 3px; background: var(--alt); }
.role-focus { background: #1d232b; color: #fff; }
.ws { border-left: 4px solid #999; padding-left: 4px; font-family: ui-monospace, monospace; font-size: 12px; }
.req-task { min-width: 0; overflow-wrap: anywhere; }
.req-fig { color: var(--muted); font-variant-numeric: tabular-nums; }
.req-body { padding: 4px 12px 10px 18px; background: #fbfcfd; }
.ev-label { font-weight: 600; font-size: 12px; color: var(--muted); margin: 8px 0 2px; text-transform: uppercase; letter-spacing: .03em; }
ol.events { margin: 0; padding-left: 22px; font-size: 13px; }
.ev-model { color: var(--muted); }
.ev-error { color: var(--fail); }
details.tool-call summary { cursor: pointer; overflow-wrap: anywhere; }
details.tool-call[open] { background: #fff; border: 1px solid var(--line); border-radius: 4px; padding: 2px 6px; margin: 2px 0; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 2px 0; padding: 4px 6px; background: var(--alt); border-radius: 4px; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; max-height: 420px; overflow: auto; }
button.unfold { font: inherit; font-size: 12px; margin: 2px 0; }
ul.changed, ul.marks { margin: 2px 0; padding-left: 18px; font-size: 13px; }
ul.changed li.other-ws { color: var(--fail); font-weight: 600; }
ul.changed span.sw { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; }
.mark { color: #8a1c1c; }
.badges { display: inline-flex; gap: 4px; flex-wrap: wrap; }
.badge { font-size: 11px; padding: 0 5px; border-radius: 8px; background: #fde2e2; color: #8a1c1c; border: 1px solid #f3b1b1; }
.pair-grid { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 4px 10px; }
.pair-h { font-weight: 600; border-bottom: 1px solid var(--line); }
.pair-cell { border: 1px solid var(--line); border-radius: 4px; padding: 3px 6px; font-size: 13px; display: flex; flex-wrap: wrap; gap: 2px 8px; align-items: baseline; }
.pair-cell.empty { border: none; }
.pair-cell.between { display: block; background: var(--alt); color: var(--muted); font-size: 12px; }
.pair-cell.marked { border-color: var(--fail); }
.pair-side { border: 1px solid var(--line); border-radius: 4px; padding: 4px 6px; }
@media (max-width: 900px) {
  header, main { padding: 0 10px; }
  .sessions-layout { grid-template-columns: minmax(0, 1fr); }
  .session-list { max-height: 320px; }
  .detail { padding: 8px; }
  .req-fig { flex-basis: 100%; }
}
`;
