// CPU the RCM proxy spends per model request (read the body, route, fold, plan, write the body) on a
// 200-request conversation of five interleaved tasks, in each of the four APIs, in mode rcm; target:
// p95 < 20 ms. The requests go through a real proxy to the scripted model server; the figure is the
// proxy's own `cpu_ms` of each log entry. Run: npm run bench:rcm-proxy   (BENCH_SMALL=1: 20 requests)
import { loadavg } from "node:os";
import { startMockModel } from "../dist/mock-model/server.js";
import { parseScript } from "../dist/mock-model/script.js";
import { startRcmProxy } from "../dist/rcm/proxy/server.js";

const SMALL = process.env.BENCH_SMALL === "1";
const REQUESTS = SMALL ? 20 : 200;
const TASKS = 5;
const words =
  "parse format ledger amount balance report category rule split currency round total entry account period month filter sort render summary".split(
    " ",
  );

function request(task, k) {
  const w = (i) => words[(task * 7 + k * 3 + i) % words.length];
  const body = Array.from(
    { length: 8 },
    (_, i) => `Make \`${w(i)}_${task}\` in \`pkg${task}/mod_${i % 3}.py\` ${w(i + 1)} the ${w(i + 2)} values.`,
  ).join(" ");
  return `Workspace: /work/w0${task}\n\nStage ${k} of task ${task}: ${body}`;
}

/** One group: the request, a write call with its result, a read call with a long output, and a reply. */
function exchange(task, k, n) {
  const file = `/work/w0${task}/pkg${task}/mod_${k % 3}.py`;
  return {
    user: request(task, k),
    calls: [
      { id: `w${n}`, name: "write", args: { filePath: file, content: "x = 2\n".repeat(40) }, result: "Wrote file successfully." },
      { id: `r${n}`, name: "read", args: { filePath: file }, result: "x = 2\n".repeat(200) },
    ],
    reply: `I updated pkg${task}/mod_${k % 3}.py; the tests pass.`,
  };
}

const tool = { name: "write", description: "write a file", parameters: { type: "object", properties: {} } };
const formats = {
  "openai-chat": {
    path: "/v1/chat/completions",
    body: (history, current) => ({
      model: "mock",
      tools: [{ type: "function", function: tool }],
      messages: [
        { role: "system", content: "You are a coding agent." },
        ...history.flatMap((g) => [
          { role: "user", content: g.user },
          {
            role: "assistant",
            content: null,
            tool_calls: g.calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } })),
          },
          ...g.calls.map((c) => ({ role: "tool", tool_call_id: c.id, content: c.result })),
          { role: "assistant", content: g.reply },
        ]),
        { role: "user", content: current },
      ],
    }),
  },
  "anthropic-messages": {
    path: "/v1/messages",
    body: (history, current) => ({
      model: "mock",
      max_tokens: 1000,
      system: "You are a coding agent.",
      tools: [{ name: "write", input_schema: tool.parameters }],
      messages: [
        ...history.flatMap((g) => [
          { role: "user", content: [{ type: "text", text: g.user }] },
          { role: "assistant", content: g.calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })) },
          { role: "user", content: g.calls.map((c) => ({ type: "tool_result", tool_use_id: c.id, content: c.result })) },
          { role: "assistant", content: [{ type: "text", text: g.reply }] },
        ]),
        { role: "user", content: [{ type: "text", text: current }] },
      ],
    }),
  },
  "openai-responses": {
    path: "/v1/responses",
    body: (history, current) => ({
      model: "mock",
      tools: [{ type: "function", ...tool }],
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "You are a coding agent." }] },
        ...history.flatMap((g) => [
          { type: "message", role: "user", content: [{ type: "input_text", text: g.user }] },
          ...g.calls.flatMap((c) => [
            { type: "function_call", call_id: c.id, name: c.name, arguments: JSON.stringify(c.args) },
            { type: "function_call_output", call_id: c.id, output: c.result },
          ]),
          { type: "message", role: "assistant", content: [{ type: "output_text", text: g.reply }] },
        ]),
        { type: "message", role: "user", content: [{ type: "input_text", text: current }] },
      ],
    }),
  },
  gemini: {
    path: "/v1beta/models/mock:generateContent",
    body: (history, current) => ({
      systemInstruction: { parts: [{ text: "You are a coding agent." }] },
      tools: [{ functionDeclarations: [tool] }],
      contents: [
        ...history.flatMap((g) => [
          { role: "user", parts: [{ text: g.user }] },
          { role: "model", parts: g.calls.map((c) => ({ functionCall: { name: c.name, args: c.args } })) },
          { role: "user", parts: g.calls.map((c) => ({ functionResponse: { name: c.name, response: { output: c.result } } })) },
          { role: "model", parts: [{ text: g.reply }] },
        ]),
        { role: "user", parts: [{ text: current }] },
      ],
    }),
  },
};

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5).toFixed(2), p95: at(0.95).toFixed(2), max: s[s.length - 1].toFixed(2) };
}

const mock = await startMockModel({ script: parseScript({ turns: [], fallback: "ok" }) });
let worst = 0;
for (const [name, f] of Object.entries(formats)) {
  const proxy = await startRcmProxy({ upstream: mock.baseURL, mode: "rcm", aux: "off" });
  const history = [];
  const counts = new Array(TASKS).fill(0);
  let bytes = 0;
  for (let n = 0; n < REQUESTS; n++) {
    const task = Math.floor(n / (1 + (n % 4))) % TASKS;
    const k = ++counts[task];
    const g = exchange(task, k, n);
    const body = JSON.stringify(f.body(history, g.user));
    bytes = body.length;
    const res = await fetch(`http://127.0.0.1:${proxy.port}${f.path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    if (res.status !== 200) throw new Error(`${name}: request ${n}: status ${res.status}`);
    await res.text();
    history.push(g);
  }
  const entries = proxy.entries();
  const notAssembled = entries.filter((e) => e.action !== "assembled");
  if (notAssembled.length > 0)
    throw new Error(`${name}: ${notAssembled.length} requests not assembled: ${JSON.stringify(notAssembled[0])}`);
  const all = stats(entries.map((e) => e.cpu_ms));
  const late = stats(entries.slice(Math.floor(REQUESTS / 2)).map((e) => e.cpu_ms));
  const last = entries[entries.length - 1];
  worst = Math.max(worst, Number(all.p95));
  console.log(
    `${name}: ${REQUESTS} requests, last body ${(bytes / 1024).toFixed(0)} KiB; proxy CPU per request median ${all.median} ms, p95 ${all.p95} ms, max ${all.max} ms; second half p95 ${late.p95} ms; last request: ${last.step.dropped} groups dropped, ${last.step.elided} elided, record ${last.step.record_chars} chars`,
  );
  await proxy.close();
}
await mock.close();
console.log(
  `target p95 < 20 ms CPU per request: ${worst < 20 ? "met" : "NOT met"} (worst p95 ${worst.toFixed(2)} ms; load average ${loadavg()[0].toFixed(1)})`,
);
