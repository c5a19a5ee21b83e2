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
.charts { display: flex; flex-wrap: wrap; gap: 18px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 10px; background: var(--bg); }
figcaption { font-weight: 600; margin-bottom: 6px; }
svg text { font: 11px system-ui, sans-serif; fill: var(--fg); }
svg .axis { stroke: #9aa4b1; stroke-width: 1; }
svg .grid { stroke: #e6e9ed; stroke-width: 1; }
svg .muted { fill: var(--muted); }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; margin: 4px 0 8px; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--alt); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; white-space: nowrap; }
tr:nth-child(even) td { background: #fafbfc; }
p.note { color: var(--muted); margin: 2px 0 6px; max-width: 900px; }
.sessions-layout { display: grid; grid-template-columns: minmax(400px, 560px) minmax(0, 1fr); gap: 16px; align-items: start; }
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
`;
