/**
 * The page's only script, inlined. It reads the report from the inline JSON block and renders the
 * per-session view. Every piece of data reaches the DOM through textContent or setAttribute, never
 * through innerHTML, so task texts and test ids cannot inject markup.
 */
export const script = String.raw`
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var report = data.report;
  var WS = ["w00", "w01", "w02", "w03", "w04"];
  var COLORS = { w00: "#4e79a7", w01: "#f28e2b", w02: "#59a14f", w03: "#b07aa1", w04: "#76b7b2" };
  var SVGNS = "http://www.w3.org/2000/svg";

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    setAll(e, attrs);
    append(e, children);
    return e;
  }
  function svgEl(tag, attrs, children) {
    var e = document.createElementNS(SVGNS, tag);
    setAll(e, attrs);
    append(e, children);
    return e;
  }
  function setAll(e, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) { if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, String(attrs[k])); });
  }
  function append(e, children) {
    if (children === null || children === undefined) return;
    if (!Array.isArray(children)) children = [children];
    children.forEach(function (c) {
      if (c === null || c === undefined) return;
      e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    });
  }
  function fmtInt(x) { return x === null || x === undefined ? "–" : Math.round(x).toLocaleString("en-US"); }
  function encPath(p) { return p.split("/").map(encodeURIComponent).join("/"); }

  var rows = [];
  report.configs.forEach(function (c, ci) {
    c.sessions.forEach(function (s) { rows.push({ ci: ci, key: ci + "/" + s.id, s: s }); });
  });
  var byKey = {};
  rows.forEach(function (r) { byKey[r.key] = r; });

  var tbody = document.getElementById("session-rows");
  var filterText = document.getElementById("session-filter");
  var filterStatus = document.getElementById("session-status");
  var detail = document.getElementById("session-detail");
  var count = document.getElementById("session-count");
  var selected = null;
  var multi = report.configs.length > 1;

  function matches(r) {
    var q = filterText.value.trim().toLowerCase();
    var st = filterStatus.value;
    if (st === "resolved" && r.s.status !== "resolved") return false;
    if (st === "unresolved" && r.s.status === "resolved") return false;
    if (st.indexOf("reason:") === 0 && r.s.reason !== st.slice(7)) return false;
    if (!q) return true;
    var hay = (r.s.id + " " + r.s.locality + " " + (r.s.reason || "") + " " + report.configs[r.ci].label).toLowerCase();
    return hay.indexOf(q) >= 0;
  }

  function renderList() {
    tbody.textContent = "";
    var shown = 0;
    rows.forEach(function (r) {
      if (!matches(r)) return;
      shown++;
      var s = r.s;
      var tr = el("tr", { tabindex: "0", "data-key": r.key, "class": "session-row" + (selected === r.key ? " selected" : "") }, [
        multi ? el("td", null, report.configs[r.ci].label) : null,
        el("td", null, s.id),
        el("td", null, s.locality),
        el("td", { "class": "status-" + s.status }, s.status === "resolved" ? "resolved" : (s.reason || "unresolved")),
        el("td", { "class": "num" }, s.usage ? fmtInt(s.usage.tokens) : "–")
      ]);
      tbody.appendChild(tr);
    });
    count.textContent = shown + " of " + rows.length + " sessions";
  }

  function rowFromEvent(ev) {
    var t = ev.target;
    while (t && t !== tbody && !(t.getAttribute && t.getAttribute("data-key"))) t = t.parentNode;
    return t && t !== tbody ? t : null;
  }
  tbody.addEventListener("click", function (ev) { var tr = rowFromEvent(ev); if (tr) select(tr.getAttribute("data-key")); });
  tbody.addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    var tr = rowFromEvent(ev); if (tr) { ev.preventDefault(); select(tr.getAttribute("data-key")); }
  });
  filterText.addEventListener("input", renderList);
  filterStatus.addEventListener("change", renderList);

  function requestText(c, step) {
    if (step.kind === "finalization") return "(finalization: finish the task and prepare it for evaluation)";
    var t = c.request_texts[step.task];
    return (t && t[String(step.stage)]) || "";
  }

  function timeline(c, s) {
    var n = s.schedule.length;
    var left = 200, laneH = 24, top = 16;
    var room = Math.max(240, (detail.clientWidth || 900) - left - 50);
    var bw = Math.max(12, Math.min(30, Math.floor(room / Math.max(1, n))));
    var width = left + n * bw + 10, height = top + WS.length * laneH + 4;
    var svg = svgEl("svg", { id: "session-timeline", width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img", "aria-label": "Schedule timeline of " + s.id });
    WS.forEach(function (w, li) {
      var y = top + li * laneH;
      var task = s.workspaces[w] || "";
      var role = task === s.focus ? " (focus)" : "";
      svg.appendChild(svgEl("rect", { x: left, y: y, width: n * bw, height: laneH - 2, fill: li % 2 ? "#fafbfc" : "#f3f5f7" }));
      var max = role ? 16 : 24;
      var shown = task.length > max ? task.slice(0, max - 1) + "…" : task;
      svg.appendChild(svgEl("text", { x: 4, y: y + 15 }, [svgEl("title", null, w + " = " + task + role), w + " " + shown + role]));
    });
    for (var i = 0; i < n; i += Math.max(1, Math.ceil(n / 12))) {
      svg.appendChild(svgEl("text", { x: left + i * bw + bw / 2, y: 11, "text-anchor": "middle", "class": "muted" }, String(i + 1)));
    }
    s.schedule.forEach(function (step, i) {
      var lane = WS.indexOf(step.workspace);
      var x = left + i * bw, y = top + lane * laneH + 1;
      var label = "#" + (i + 1) + " · " + step.workspace + " · " + step.task + " · " +
        (step.kind === "finalization" ? "finalization" : "stage " + step.stage) + (step.focus_return ? " · focus return" : "");
      var text = requestText(c, step);
      var g = svgEl("g", { "class": "tl-step", "data-index": i });
      g.appendChild(svgEl("rect", {
        "class": "tl-block", x: x + 1, y: y, width: bw - 2, height: laneH - 4, rx: 2,
        fill: COLORS[step.workspace] || "#999", stroke: step.role === "focus" ? "#1d232b" : "none", "stroke-width": step.role === "focus" ? 1.5 : 0
      }, svgEl("title", null, label + (text ? "\n" + (text.length > 400 ? text.slice(0, 400) + "…" : text) : ""))));
      if (bw >= 14) {
        g.appendChild(svgEl("text", { x: x + bw / 2, y: y + 14, "text-anchor": "middle", fill: "#fff", style: "fill:#fff;pointer-events:none" },
          step.kind === "finalization" ? "F" : String(step.stage)));
      }
      if (step.focus_return) {
        g.appendChild(svgEl("path", { "class": "tl-return", d: "M" + (x + 1) + " " + y + " l7 0 l-7 7 z", fill: "#1d232b" }));
      }
      svg.appendChild(g);
    });
    return el("div", null, [svg, el("p", { "class": "note" }, "One block per request, in delivery order (number = stage, F = finalization); outlined = focus task; dark corner = focus return.")]);
  }

  function kv(label, value) { return el("div", null, [el("strong", null, label + ": "), value]); }

  function renderDetail(r) {
    var c = report.configs[r.ci], s = r.s, base = data.links[r.ci];
    detail.textContent = "";
    detail.appendChild(el("h3", null, s.id + (multi ? " — " + c.label : "")));
    detail.appendChild(kv("Status", el("span", { "class": "status-" + s.status }, s.status + (s.reason ? " (" + s.reason + ")" : ""))));
    if (s.detail) detail.appendChild(kv("Detail", s.detail));
    detail.appendChild(kv("Condition", (s.condition === "base" ? "uninterrupted" : "switched") + " · " + s.locality + " · focus " + s.focus));
    detail.appendChild(kv("Requests", s.requests.delivered + " delivered of " + s.requests.scheduled + " scheduled · " +
      s.workspace_switches + " workspace switches · " + s.focus_returns + " focus returns · attempts " + s.attempts +
      " · timeouts " + s.timeouts + " · continuations " + s.continuations));
    if (s.usage) detail.appendChild(kv("Usage", fmtInt(s.usage.tokens) + " tokens · " + s.usage.model_calls + " model calls · " +
      s.usage.tool_calls + " tool calls" + (s.usage.cost_usd !== null ? " · $" + s.usage.cost_usd.toFixed(4) : "") +
      " · resumed focus stages " + fmtInt(s.usage.resumed_focus_tokens) + " tokens" +
      (s.usage.auxiliary_model_calls ? " · auxiliary " + fmtInt(s.usage.auxiliary_tokens) + " tokens" : "")));
    var links = el("div", { "class": "links" });
    [["trajectory.jsonl", s.files.trajectory], ["artifact.patch", s.files.artifact]].forEach(function (l) {
      if (l[1]) links.appendChild(el("a", { href: (base ? base + "/" : "") + encPath(l[1]), "class": "file-link" }, l[0]));
      else links.appendChild(el("span", { "class": "muted" }, "no " + l[0] + " "));
    });
    detail.appendChild(kv("Files", links));

    detail.appendChild(el("h3", null, "Schedule"));
    var legend = el("div", { "class": "legend" });
    WS.forEach(function (w) {
      legend.appendChild(el("span", null, [el("span", { "class": "sw", style: "background:" + COLORS[w] }), w + " = " + (s.workspaces[w] || "?") + (s.workspaces[w] === s.focus ? " (focus)" : "")]));
    });
    detail.appendChild(legend);
    detail.appendChild(el("div", { "class": "table-wrap" }, timeline(c, s)));
    var reqRows = s.schedule.map(function (step, i) {
      return el("tr", null, [
        el("td", { "class": "num" }, String(i + 1)),
        el("td", null, step.workspace),
        el("td", null, step.task),
        el("td", null, step.role),
        el("td", null, step.kind === "finalization" ? "finalization" : "stage " + step.stage),
        el("td", null, step.focus_return ? "yes" : ""),
        el("td", { "class": "request-text" }, requestText(c, step))
      ]);
    });
    detail.appendChild(el("details", null, [el("summary", null, "Requests (" + s.schedule.length + ")"),
      el("div", { "class": "table-wrap" }, el("table", { id: "session-requests" }, [
        el("thead", null, el("tr", null, ["#", "Workspace", "Task", "Role", "Request", "Focus return", "Text"].map(function (h) { return el("th", null, h); }))),
        el("tbody", null, reqRows)]))]));

    detail.appendChild(el("h3", null, "Verdict"));
    var v = s.verdict;
    if (!v) {
      detail.appendChild(el("p", { "class": "note" }, "No verdict" + (s.reason ? " (" + s.reason + ")" : "") + "."));
      return;
    }
    detail.appendChild(el("p", null, (v.resolved ? "resolved" : "not resolved") + " · applied: " + (v.applied ? "yes (" + (v.apply_method || "?") + ")" : "no") +
      " · F2P " + v.fail_to_pass.passed + "/" + v.fail_to_pass.total + " · P2P " + v.pass_to_pass.passed + "/" + v.pass_to_pass.total +
      (v.infra_fault ? " · infrastructure fault" : "") + (v.timed_out ? " · timed out" : "") +
      (s.failed_stages && s.failed_stages.length ? " · failed stages: " + s.failed_stages.join(", ") : "")));
    var tests = v.tests.slice().sort(function (a, b) { return (a.kind || "~").localeCompare(b.kind || "~") || (a.stage || 0) - (b.stage || 0) || a.id.localeCompare(b.id); });
    detail.appendChild(el("div", { "class": "table-wrap" }, el("table", { id: "session-tests" }, [
      el("thead", null, el("tr", null, ["Test", "Kind", "Stage", "Status"].map(function (h) { return el("th", null, h); }))),
      el("tbody", null, tests.map(function (t) {
        return el("tr", null, [el("td", null, t.id), el("td", null, t.kind || "?"), el("td", { "class": "num" }, t.stage === null ? "" : String(t.stage)),
          el("td", { "class": "t-" + t.status }, t.status)]);
      }))])));
  }

  function select(key) {
    var r = byKey[key];
    if (!r) return;
    selected = key;
    Array.prototype.forEach.call(tbody.querySelectorAll("tr.selected"), function (tr) { tr.classList.remove("selected"); });
    Array.prototype.forEach.call(tbody.querySelectorAll("tr"), function (tr) { if (tr.getAttribute("data-key") === key) tr.classList.add("selected"); });
    renderDetail(r);
    try { history.replaceState(null, "", "#session=" + encodeURIComponent(key)); } catch (e) { /* file: URLs may refuse */ }
  }

  renderList();
  var m = /^#session=(.+)$/.exec(location.hash);
  if (m) select(decodeURIComponent(m[1]));
})();
`;
