// Per-step overhead of RCM routing and assembly on a long interleaved history (target: < 20 ms a step
// on one core with 200 groups). Run: npm run bench:rcm   (BENCH_SMALL=1: 20 warm-up and 10 measured steps)
// Measures (1) the host-neutral core (RcmEngine.prepare: route the new request, fold the previous
// group into its state record, plan the assembly) and (2) the same step through the OpenCode plugin's
// message conversion (historyView + applyPlan on OpenCode-shaped messages), for steps 201..300.
import { RcmEngine } from "../dist/rcm/engine.js";
import { parseRcmOptions } from "../dist/rcm/options.js";
import { historyView, applyPlan } from "../dist/opencode-plugin/messages.js";

const TASKS = 5;
const SMALL = process.env.BENCH_SMALL === "1";
const WARM = SMALL ? 20 : 200;
const MEASURED = SMALL ? 10 : 100;
const words =
  "parse format ledger amount balance report category rule split currency round total entry account period month filter sort render summary".split(
    " ",
  );

function request(task, k) {
  const w = (i) => words[(task * 7 + k * 3 + i) % words.length];
  const ws = `/runs/r1/work/s/attempt-1/w0${task}`;
  const body = Array.from(
    { length: 12 },
    (_, i) =>
      `Make \`${w(i)}_${task}\` in \`pkg${task}/mod_${i % 3}.py\` ${w(i + 1)} the ${w(i + 2)} values and keep ${w(i + 3)} unchanged.`,
  ).join(" ");
  return `Repository: demo\nWorkspace: ${ws}\n\nStage ${k} of task ${task}: ${body}`;
}

function actions(task, k) {
  const ws = `/runs/r1/work/s/attempt-1/w0${task}`;
  const file = `${ws}/pkg${task}/mod_${k % 3}.py`;
  return [
    { kind: "tool", tool: "read", args: { filePath: file }, paths: [file], status: "ok", text: "x = 1\n".repeat(80) },
    {
      kind: "tool",
      tool: "edit",
      args: { filePath: file, oldString: "x = 1", newString: "x = 2" },
      paths: [file],
      status: "ok",
      text: "Edit applied successfully.",
    },
    { kind: "tool", tool: "bash", args: { command: "python -m pytest -q" }, status: "ok", text: "....\n4 passed in 0.12s" },
    { kind: "assistant", text: `I updated pkg${task}/mod_${k % 3}.py; the tests pass.` },
  ];
}

function taskOf(step) {
  // Runs of 1-4 requests per task, deterministic.
  return Math.floor(step / (1 + (step % 4))) % TASKS;
}

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return {
    median: +at(0.5).toFixed(3),
    p95: +at(0.95).toFixed(3),
    max: +s[s.length - 1].toFixed(3),
    mean: +(s.reduce((a, b) => a + b, 0) / s.length).toFixed(3),
  };
}

function toOpenCode(groups) {
  const messages = [];
  for (const g of groups) {
    messages.push({
      info: { id: g.id, sessionID: "ses_bench", role: "user" },
      parts: [{ id: `${g.id}p`, sessionID: "ses_bench", messageID: g.id, type: "text", text: g.userText }],
    });
    if (g.actions.length === 0) continue;
    const aid = `${g.id}a`;
    messages.push({
      info: { id: aid, sessionID: "ses_bench", role: "assistant" },
      parts: g.actions.map((a, i) =>
        a.kind === "assistant"
          ? { id: `${aid}${i}`, sessionID: "ses_bench", messageID: aid, type: "text", text: a.text }
          : {
              id: `${aid}${i}`,
              sessionID: "ses_bench",
              messageID: aid,
              type: "tool",
              tool: a.tool,
              callID: `c${i}`,
              state: { status: "completed", input: a.args, output: a.text, title: "", metadata: {}, time: { start: 0, end: 0 } },
            },
      ),
    });
  }
  return messages;
}

function run(mode) {
  const engine = new RcmEngine(parseRcmOptions({ mode }));
  const groups = [];
  const counts = new Array(TASKS).fill(0);
  const core = [];
  const coreCpu = [];
  const pluginCpu = [];
  let last = null;
  for (let step = 0; step < WARM + MEASURED; step++) {
    const task = taskOf(step);
    const k = ++counts[task];
    const g = {
      id: `msg_${String(step).padStart(5, "0")}`,
      userMessageId: `msg_${String(step).padStart(5, "0")}`,
      userText: request(task, k),
      actions: [],
    };
    groups.push(g);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    last = engine.prepare(groups);
    const dt = performance.now() - t0;
    const c = process.cpuUsage(c0);
    if (step >= WARM) {
      core.push(dt);
      coreCpu.push((c.user + c.system) / 1000);
    }
    g.actions.push(...actions(task, k));
  }
  // The plugin path: OpenCode messages -> groups -> plan -> in-place edits, with a warm engine.
  const plugin = [];
  for (let r = 0; r < MEASURED; r++) {
    const step = WARM + MEASURED + r;
    const task = taskOf(step);
    const k = ++counts[task];
    const g = {
      id: `msg_${String(step).padStart(5, "0")}`,
      userMessageId: `msg_${String(step).padStart(5, "0")}`,
      userText: request(task, k),
      actions: [],
    };
    groups.push(g);
    const messages = toOpenCode(groups);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const view = historyView(messages);
    const plan = engine.prepare(view.groups);
    applyPlan(messages, view, plan);
    plugin.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    pluginCpu.push((c.user + c.system) / 1000);
    g.actions.push(...actions(task, k));
  }
  return {
    mode,
    groups_at_start: WARM,
    core: stats(core),
    plugin: stats(plugin),
    coreCpu: stats(coreCpu),
    pluginCpu: stats(pluginCpu),
    last_plan: {
      active: last.active,
      dropped: last.treatments.filter((t) => t === "dropped").length,
      elided: last.treatments.filter((t) => t === "elided").length,
      record_chars: last.record?.length ?? 0,
    },
  };
}

const results = ["router", "rcm"].map(run);
for (const r of results) {
  console.log(`mode ${r.mode}: history ${r.groups_at_start}..${r.groups_at_start + 2 * MEASURED} groups`);
  console.log(
    `  core (route + fold + plan)         wall median ${r.core.median} ms, p95 ${r.core.p95} ms, max ${r.core.max} ms; cpu median ${r.coreCpu.median} ms, p95 ${r.coreCpu.p95} ms`,
  );
  console.log(
    `  plugin (messages + core + edits)   wall median ${r.plugin.median} ms, p95 ${r.plugin.p95} ms, max ${r.plugin.max} ms; cpu median ${r.pluginCpu.median} ms, p95 ${r.pluginCpu.p95} ms`,
  );
  console.log(
    `  last step: active ${r.last_plan.active}, ${r.last_plan.dropped} groups dropped, ${r.last_plan.elided} elided, record ${r.last_plan.record_chars} chars`,
  );
}
// CPU time is what one core spends; wall time also counts waiting for a busy machine.
const worst = Math.max(...results.map((r) => r.pluginCpu.p95));
const worstWall = Math.max(...results.map((r) => r.plugin.p95));
console.log(
  `target < 20 ms per step on one core: ${worst < 20 ? "met" : "NOT met"} (worst p95 CPU ${worst} ms, wall ${worstWall} ms; load average ${(await import("node:os")).loadavg()[0].toFixed(1)})`,
);
