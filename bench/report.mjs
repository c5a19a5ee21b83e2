#!/usr/bin/env node
// Benchmark of `switch-swe report`: a synthetic run of 400 sessions (200 focus tasks × 2 conditions),
// 200 model calls and 200 tool calls per session, 22 requests per switched session (7 per uninterrupted one).
// Measures (1) buildReport + renderReport(json) in a fresh process: time and peak RSS (maxRSS), and
// (2) the CLI end to end (`report RUN_DIR --format json`): wall time and peak RSS (VmHWM from /proc).
// Every session carries the per-request evidence (a workspace_state line per request: five trees, three
// changed files with blob ids) and every task reference patches of 40 lines per stage, artifacts of
// 240 lines, so the signatures (contamination included) are computed as in a real run.
// Targets: under 10 s and under 500 MB.
// (3) The HTML page with the session viewer: its size and, in headless Chromium (/usr/bin/chromium), the
// time to open it (navigation to the load event, the session list drawn) and to open one session's requests.
// Tool outputs are varied text (not one repeated character) so the page's gzip does not flatter its size.
// Target: the page opens in under 2 s.
//
//   npm run bench:report                      # build, then run
//   node bench/report.mjs [--pairs 200] [--calls 200] [--keep]
//   BENCH_SMALL=1: 5 pairs, 4 calls (seconds; the target is then not checked)
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const cli = resolve(here, "../dist/cli/main.js");
const MB = 1024 * 1024;

if (process.argv[2] === "--measure") {
  // Child mode: one clean process per measurement, so maxRSS is this report's peak alone.
  const [runDir, outFile] = process.argv.slice(3);
  const { buildReport, renderReport } = await import("../dist/report/index.js");
  const t0 = performance.now();
  const report = await buildReport([runDir]);
  const t1 = performance.now();
  const text = renderReport(report, "json");
  writeFileSync(outFile, text);
  const t2 = performance.now();
  const html = renderReport(report, "html", { outFile: `${outFile}.html` });
  writeFileSync(`${outFile}.html`, html);
  const t3 = performance.now();
  process.stdout.write(
    JSON.stringify({
      build_ms: t1 - t0,
      json_ms: t2 - t1,
      html_ms: t3 - t2,
      json_bytes: Buffer.byteLength(text),
      html_bytes: Buffer.byteLength(html),
      max_rss_kb: process.resourceUsage().maxRSS,
      cpu_ms: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
      gap: report.configs[0].groups.overall.gap,
      signatures_available: report.configs[0].signatures.switch.cross_task_contamination.available,
    }) + "\n",
  );
  process.exit(0);
}

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}
const SMALL = process.env.BENCH_SMALL === "1";
const PAIRS = arg("pairs", SMALL ? 5 : 200); // at least 5: each focus task has 4 other tasks as interruptions
const CALLS = arg("calls", SMALL ? 4 : 200);
const KEEP = process.argv.includes("--keep");
const FOCUS_STAGES = 6;
const INTERRUPTION_STAGES = 4; // 4 interruptions × 4 stages = 16; switched = 6 focus + 15 interruption + finalization = 22
const WS = ["w00", "w01", "w02", "w03", "w04"];

function schedules(focus, interruptions, f) {
  const wsOf = { [focus]: WS[f] };
  interruptions.forEach((t, j) => (wsOf[t] = WS[(f + 1 + j) % 5]));
  const text = (task, stage) => `Stage ${stage} of ${task}: implement the <feature> described in issue #${stage} & keep the API stable.`;
  const fstep = (k) => ({ kind: "stage", task: focus, workspace: wsOf[focus], stage: k, text: text(focus, k) });
  const fin = { kind: "finalization", task: focus, workspace: wsOf[focus] };
  const base = [...Array.from({ length: FOCUS_STAGES }, (_, k) => fstep(k + 1)), fin];
  const queue = [];
  for (let s = 1; s <= INTERRUPTION_STAGES; s++)
    for (const t of interruptions) queue.push({ kind: "stage", task: t, workspace: wsOf[t], stage: s, text: text(t, s) });
  const sw = [fstep(1)];
  for (let k = 2; k <= FOCUS_STAGES; k++) {
    sw.push(queue.shift(), queue.shift(), queue.shift());
    sw.push(fstep(k));
  }
  sw.push(fin);
  const workspaces = {};
  for (const [t, w] of Object.entries(wsOf)) workspaces[w] = t;
  return { base, switch: sw, workspaces };
}

/** A reference patch of 40 added lines with identifiers of its own (task i, stage k). */
function stagePatch(i, k) {
  const lines = Array.from({ length: 40 }, (_, j) => `+    value_${i}_${k}_${j} = compute_task${i}_stage${k}(item_${j})`);
  return [
    `diff --git a/src/t${i}.py b/src/t${i}.py`,
    `--- a/src/t${i}.py`,
    `+++ b/src/t${i}.py`,
    `@@ -1,1 +1,41 @@`,
    " def existing_function():",
    ...lines,
    "",
  ].join("\n");
}

const hex = (n) => n.toString(16).padStart(40, "0");
let blobCounter = 1;

/** The workspace_state line after request `index`: five trees, and three changed files of its own workspace. */
function stateLine(t, index, step) {
  const trees = Object.fromEntries(WS.map((w) => [w, { tree: hex(blobCounter++) }]));
  const changed =
    step && step.kind === "stage"
      ? {
          [step.workspace]: [0, 1, 2].map((j) => ({
            path: `src/${step.task}/m${j}.py`,
            before: hex(blobCounter++),
            after: hex(blobCounter++),
          })),
        }
      : {};
  return JSON.stringify({ type: "workspace_state", time: t, ...(index === null ? {} : { index }), trees, changed });
}

function generate(root) {
  const datasetDir = join(root, "dataset");
  const runDir = join(root, "run");
  mkdirSync(join(datasetDir, "repos", "r"), { recursive: true });
  writeFileSync(join(datasetDir, "dataset.json"), JSON.stringify({ name: "bench", version: "1.0.0", repos: { r: { path: "repos/r" } } }));
  const pairs = [];
  for (let i = 0; i < PAIRS; i++) {
    const focus = `task-${String(i).padStart(4, "0")}`;
    const interruptions = [1, 2, 3, 4].map((j) => `task-${String((i + j) % PAIRS).padStart(4, "0")}`);
    const s = schedules(focus, interruptions, i % 5);
    pairs.push({
      id: focus,
      focus,
      repo: "r",
      locality: i % 2 ? "far" : "near",
      interruptions,
      workspaces: s.workspaces,
      source_files: {},
      schedules: { base: s.base, switch: s.switch },
    });
    const taskDir = join(datasetDir, "tasks", focus);
    mkdirSync(taskDir, { recursive: true });
    const requests = Array.from({ length: FOCUS_STAGES }, (_, k) => ({
      text: `stage ${k + 1}`,
      tests: [`tests/test_${i}.py::test_s${k + 1}`],
    }));
    writeFileSync(
      join(taskDir, "task.json"),
      JSON.stringify({
        id: focus,
        repo: "r",
        base: "HEAD",
        requests,
        verifier: { fail_to_pass: requests.map((r) => r.tests[0]), pass_to_pass: [`tests/test_${i}.py::test_old`] },
      }),
    );
    for (let k = 1; k <= FOCUS_STAGES; k++) writeFileSync(join(taskDir, `stage-${k}.patch`), stagePatch(i, k));
    writeFileSync(join(taskDir, "tests.patch"), "");
  }
  const sessions = { format: "switch-swe.sessions/1", dataset: { name: "bench", version: "1.0.0" }, seed: 0, pairs, excluded: [] };
  const sessionsText = JSON.stringify(sessions);
  const sessionsPath = join(root, "sessions.json");
  writeFileSync(sessionsPath, sessionsText);
  mkdirSync(runDir, { recursive: true });
  writeFileSync(
    join(runDir, "run.json"),
    JSON.stringify({
      format: "switch-swe.run/1",
      label: "bench",
      agent: { name: "synthetic", options: {} },
      dataset: { path: datasetDir, name: "bench", version: "1.0.0" },
      sessions_file: { path: sessionsPath, sha256: createHash("sha256").update(sessionsText).digest("hex") },
      seed: 0,
    }),
  );
  // Varied outputs (seeded): 400 characters of words, numbers and paths, 1,000 distinct ones.
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = [
    "passed",
    "failed",
    "src/module.py",
    "def",
    "return",
    "assert",
    "value",
    "error",
    "line",
    "collected",
    "items",
    "test_",
    "ok",
    "warning",
  ];
  const outputs = Array.from({ length: 1000 }, () => {
    let t = "";
    while (t.length < 400) t += `${words[Math.floor(rnd() * words.length)]}${Math.floor(rnd() * 1000)} `;
    return t.slice(0, 400);
  });
  let bytes = 0;
  let lines = 0;
  for (const [i, pair] of pairs.entries()) {
    for (const condition of ["base", "switch"]) {
      const id = `${pair.id}.${condition}`;
      const dir = join(runDir, "sessions", id);
      mkdirSync(dir, { recursive: true });
      const steps = pair.schedules[condition];
      const t = "2025-01-01T00:00:00.000Z";
      const out = [
        JSON.stringify({ type: "session_start", time: t, session: id, pair: pair.id, condition, attempt: 1, agent: "synthetic" }),
      ];
      out.push(stateLine(t, null, null));
      let seenFocus = false;
      steps.forEach((step, index) => {
        const role = step.task === pair.focus ? "focus" : "interruption";
        const prev = steps[index - 1];
        const focusReturn =
          role === "focus" && step.kind === "stage" && seenFocus && prev !== undefined && prev.workspace !== step.workspace;
        if (role === "focus" && step.kind === "stage") seenFocus = true;
        out.push(
          JSON.stringify({
            type: "request_start",
            time: t,
            index,
            task: step.task,
            role,
            workspace: step.workspace,
            workspace_path: `/work/${step.workspace}`,
            kind: step.kind,
            ...(step.kind === "stage" ? { stage: step.stage } : {}),
            focus_return: focusReturn,
            message: step.kind === "stage" ? step.text : "Finish the task.",
          }),
        );
        const calls = Math.floor(CALLS / steps.length) + (index < CALLS % steps.length ? 1 : 0);
        for (let c = 0; c < calls; c++) {
          out.push(
            JSON.stringify({
              type: "agent_event",
              time: t,
              index,
              event: {
                kind: "model_call",
                model: "m",
                input_tokens: 1200 + c,
                cached_input_tokens: 8000,
                output_tokens: 300,
                reasoning_tokens: 120,
                reasoning_in_output: true,
                cost_usd: 0.0021,
              },
            }),
          );
          out.push(
            JSON.stringify({
              type: "agent_event",
              time: t,
              index,
              event: {
                kind: "tool_call",
                name: "bash",
                args: { command: "pytest -q" },
                paths: ["src/x.py"],
                status: "ok",
                output: outputs[(i * 7919 + index * 131 + c) % outputs.length],
              },
            }),
          );
        }
        out.push(JSON.stringify({ type: "request_end", time: t, index, outcome: "yielded", duration_ms: 1000 }));
        out.push(stateLine(t, index, step));
      });
      out.push(JSON.stringify({ type: "session_end", time: t, status: "finished", finalized: true }));
      const text = out.join("\n") + "\n";
      bytes += text.length;
      lines += out.length;
      writeFileSync(join(dir, "trajectory.jsonl"), text);
      writeFileSync(join(dir, "session.json"), JSON.stringify({ status: "finished", finalized: true, attempts: 1 }));
      writeFileSync(join(dir, "artifact.patch"), Array.from({ length: FOCUS_STAGES }, (_, k) => stagePatch(i, k + 1)).join(""));
      const resolved = condition === "base" ? i % 10 < 7 : i % 10 < 4;
      const tests = {};
      for (let k = 1; k <= FOCUS_STAGES; k++)
        tests[`tests/test_${i}.py::test_s${k}`] = resolved || k !== 1 + (i % FOCUS_STAGES) ? "passed" : "failed";
      tests[`tests/test_${i}.py::test_old`] = "passed";
      writeFileSync(
        join(dir, "verdict.json"),
        JSON.stringify({
          format: "switch-swe.verdict/1",
          session: id,
          task: pair.focus,
          artifact_sha256: null,
          applied: true,
          apply_method: "git-apply",
          dropped_files: [],
          tests,
          fail_to_pass: { passed: resolved ? FOCUS_STAGES : FOCUS_STAGES - 1, total: FOCUS_STAGES },
          pass_to_pass: { passed: 1, total: 1 },
          resolved,
          infra_fault: false,
          timed_out: false,
          exit_code: 0,
          result_source: "junit",
          setup_cached: true,
          duration_ms: 1,
          attempts: 1,
          log: "verify.log",
          verified_at: t,
        }),
      );
    }
  }
  return { runDir, bytes, lines };
}

function run(cmd, args, { pollRss = false } = {}) {
  return new Promise((resolveRun, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let hwmKb = 0;
    const poll = pollRss
      ? setInterval(() => {
          try {
            const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
            if (m) hwmKb = Math.max(hwmKb, Number(m[1]));
          } catch {
            /* exited */
          }
        }, 10)
      : null;
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (poll) clearInterval(poll);
      if (code !== 0) reject(new Error(`${cmd} ${args.join(" ")} exited ${code}: ${stderr}`));
      else resolveRun({ ms: performance.now() - t0, stdout, hwmKb });
    });
  });
}

/** Opens the page in headless Chromium: time to the load event with the session list drawn, then one session. */
async function openInChromium(file) {
  const chromiumPath = "/usr/bin/chromium";
  if (!existsSync(chromiumPath)) {
    console.log("html page: Chromium not found at /usr/bin/chromium, open time not measured");
    return null;
  }
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
    await page.waitForSelector("#session-rows tr");
    const open_ms = await page.evaluate(() => performance.now());
    const t0 = await page.evaluate(() => performance.now());
    await page.locator('#session-rows tr[data-key$=".switch"]').first().click();
    await page.waitForSelector("#request-timeline");
    const session_ms = (await page.evaluate(() => performance.now())) - t0;
    const requests = await page.locator("#request-timeline li.req").count();
    return { open_ms, session_ms, requests };
  } finally {
    await browser.close();
  }
}

const root = mkdtempSync(join(tmpdir(), "switch-swe-bench-report-"));
try {
  const g0 = performance.now();
  const { runDir, bytes, lines } = generate(root);
  const genMs = performance.now() - g0;
  console.log(
    `synthetic run: ${PAIRS * 2} sessions, ${CALLS} model calls + ${CALLS} tool calls each, 22 requests per switched session; ${lines.toLocaleString("en-US")} trajectory lines, ${(bytes / MB).toFixed(1)} MB (generated in ${(genMs / 1000).toFixed(1)} s)`,
  );

  const inproc = JSON.parse(
    (await run(process.execPath, [fileURLToPath(import.meta.url), "--measure", runDir, join(root, "report.json")])).stdout,
  );
  console.log(`buildReport:           ${(inproc.build_ms / 1000).toFixed(2)} s`);
  console.log(`renderReport json:     ${(inproc.json_ms / 1000).toFixed(2)} s (${(inproc.json_bytes / MB).toFixed(1)} MB)`);
  console.log(`renderReport html:     ${(inproc.html_ms / 1000).toFixed(2)} s (${(inproc.html_bytes / MB).toFixed(1)} MB)`);
  console.log(
    `peak RSS (in process): ${(inproc.max_rss_kb / 1024).toFixed(0)} MB; CPU time of the whole process ${(inproc.cpu_ms / 1000).toFixed(2)} s (less sensitive to a loaded machine than wall time)`,
  );

  const page = await openInChromium(join(root, "report.json.html"));
  const pageOk = page === null || page.open_ms < 2000;
  if (page) {
    console.log(
      `html page: ${(inproc.html_bytes / MB).toFixed(1)} MB; Chromium: opened in ${page.open_ms.toFixed(0)} ms (load event, session list drawn), a switched session's ${page.requests} requests in ${page.session_ms.toFixed(0)} ms`,
    );
    console.log(`target page opens < 2 s: ${pageOk ? "met" : "NOT MET"}`);
  }

  const cliRun = await run(process.execPath, [cli, "report", runDir, "--format", "json", "--out", join(root, "cli.json")], {
    pollRss: true,
  });
  const size = statSync(join(root, "cli.json")).size;
  console.log(
    `CLI report --format json: ${(cliRun.ms / 1000).toFixed(2)} s wall (process start included), peak RSS ${(cliRun.hwmKb / 1024).toFixed(0)} MB (VmHWM), ${(size / MB).toFixed(1)} MB written`,
  );
  const ok = cliRun.ms < 10_000 && cliRun.hwmKb < 500 * 1024 && inproc.max_rss_kb < 500 * 1024;
  if (SMALL) console.log("target < 10 s and < 500 MB: not checked in the small configuration");
  else console.log(`target < 10 s and < 500 MB: ${ok ? "met" : "NOT MET"}`);
  if ((!ok || !pageOk) && !SMALL) process.exitCode = 1;
} finally {
  if (KEEP) console.log(`kept ${root}`);
  else rmSync(root, { recursive: true, force: true });
}
