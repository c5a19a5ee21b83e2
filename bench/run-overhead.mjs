// What a session costs the harness beside the agent, measured on the built code (npm run bench:run):
//  1. over the sample sessions, three passes: the `nop` agent (the floor: no process, no change), then a
//     command agent that appends one line to a file of its workspace per request (a process per request,
//     so the request's sandbox start; a change, so the workspace evidence reads files), in the session
//     sandbox (bwrap) and without it. Each pass prints CPU and wall time per phase of the harness
//     (src/run/phase-timing.ts: workspace set-up, agent start, request, evidence, trajectory, artifact,
//     clean-up, the rest), per session and per request. CPU is this process's (exact) plus its waited-for
//     children's (git, bwrap, sh: /proc/self/stat, in clock ticks of 10 ms, so summed over many phases);
//  2. workspace set-up and artifact collection per session from the progress events (the `nop` pass);
//  3. a generated repository of 20,000 files of 10 kB (200 MB), a stand-in for sympy: five workspaces set up,
//     nine requests' evidence, five patches and the clean-up, as copies and as copy-on-write overlays.
// Sessions run one at a time (concurrency 1), so the phases of one process never overlap.
//   node bench/run-overhead.mjs [--sessions N]     BENCH_SMALL=1: 2 sessions, 200 files, one repetition
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { loadDataset } from "../dist/dataset/load.js";
import { materializeRepo } from "../dist/dataset/repo-cache.js";
import { buildSessions } from "../dist/sessions/build.js";
import { runSessions } from "../dist/run/runner.js";
import { collectPatch } from "../dist/run/artifact.js";
import { observePhases } from "../dist/run/phase-timing.js";
import { createWorkspaces, removeWorkDir } from "../dist/run/workspaces.js";
import { WorkspaceEvidence } from "../dist/run/workspace-evidence.js";
import { overlayChangedPaths } from "../dist/run/overlay-changes.js";
import { workspaceNames } from "../dist/formats/sessions.js";

const SMALL = process.env.BENCH_SMALL === "1";
const argIndex = process.argv.indexOf("--sessions");
const SESSIONS = argIndex > 0 ? Number(process.argv[argIndex + 1]) : SMALL ? 2 : Infinity;
const FILES = SMALL ? 200 : 20_000;
const FILE_BYTES = SMALL ? 100 : 10_000;
const REQUESTS = 9;
const REPS = SMALL ? 1 : 3;

const root = mkdtempSync(join(tmpdir(), "switch-swe-bench-run-"));
process.env.SWITCH_SWE_CACHE = join(root, "cache");
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const ms = (x) => `${x.toFixed(1)} ms`;
const summary = (xs) => `median ${ms(quantile(xs, 0.5))}, p95 ${ms(quantile(xs, 0.95))}, max ${ms(Math.max(...xs))} (n=${xs.length})`;

/** Wall time, this process's CPU and its reaped children's CPU, in ms. */
function sample() {
  const u = process.cpuUsage();
  const f = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  return { wall: performance.now(), self: (u.user + u.system) / 1000, children: (Number(f[13]) + Number(f[14])) * 10 };
}

/** Charges the time between phase edges to the innermost open phase (or to "other"): exclusive figures. */
function phaseMeter() {
  const totals = new Map();
  const stack = [];
  let last = sample();
  const entry = (key) => {
    if (!totals.has(key)) totals.set(key, { n: 0, wall: 0, self: 0, children: 0 });
    return totals.get(key);
  };
  const charge = (now) => {
    const t = entry(stack.at(-1) ?? "other");
    t.wall += now.wall - last.wall;
    t.self += now.self - last.self;
    t.children += now.children - last.children;
    last = now;
  };
  return {
    totals,
    observer: (phase, edge) => {
      charge(sample());
      if (edge === "start") {
        stack.push(phase);
        entry(phase).n++;
      } else stack.pop();
    },
    finish: () => charge(sample()),
  };
}

const phases = ["workspace_setup", "agent_start", "request", "evidence", "trajectory", "artifact", "cleanup", "other"];
const perRequestPhases = new Set(["request", "evidence", "trajectory"]);

function printPhases(label, totals, sessions, requests) {
  const cell = (t, per) =>
    `${(t.wall / per).toFixed(1).padStart(8)} ${((t.self + t.children) / per).toFixed(1).padStart(8)} (${(t.self / per).toFixed(1)} + ${(t.children / per).toFixed(1)})`;
  console.log(`${label}: ${sessions} sessions, ${requests} requests; ms of wall and CPU (node + child processes), load ${load()}`);
  console.log(`  ${"phase".padEnd(16)} ${"count".padStart(6)} | per session: wall      CPU                | per request: wall      CPU`);
  const harness = { wall: 0, self: 0, children: 0 };
  for (const name of phases) {
    const t = totals.get(name) ?? { n: 0, wall: 0, self: 0, children: 0 };
    if (name !== "request") for (const k of ["wall", "self", "children"]) harness[k] += t[k];
    const per = perRequestPhases.has(name) ? cell(t, requests) : "";
    console.log(
      `  ${name.padEnd(16)} ${String(perRequestPhases.has(name) ? t.n : "").padStart(6)} | ${cell(t, sessions).padEnd(38)} | ${per}`,
    );
  }
  console.log(`  ${"harness (not request)".padEnd(23)} | ${cell(harness, sessions).padEnd(38)} | ${cell(harness, requests)}`);
}

async function samplePasses() {
  const datasetDir = new URL("../datasets/sample", import.meta.url).pathname;
  const dataset = loadDataset(datasetDir);
  const sessionsPath = join(root, "sessions.json");
  const file = buildSessions(dataset, { seed: 0 });
  writeFileSync(sessionsPath, JSON.stringify(file));
  const all = file.pairs.flatMap((p) => [
    [`${p.id}.base`, p.schedules.base.length],
    [`${p.id}.switch`, p.schedules.switch.length],
  ]);
  const chosen = all.slice(0, Math.min(all.length, SESSIONS));
  const requests = chosen.reduce((n, [, r]) => n + r, 0);
  const sessionIds = chosen.map(([s]) => s);
  // Warm the repository cache and the per-commit skeletons once, as any run after the first would find them.
  for (const name of Object.keys(dataset.manifest.repos)) await materializeRepo(dataset, name);
  if (!SMALL)
    await runSessions({
      out: join(root, "run-warm"),
      resume: false,
      dataset: datasetDir,
      sessions: sessionsPath,
      sessionIds,
      agent: "nop",
      agentOptions: {},
      concurrency: 1,
      keepWorkspaces: false,
      verify: false,
      progress: () => undefined,
    });

  const agentScript = join(root, "agent.sh");
  writeFileSync(agentScript, `#!/bin/sh\necho "request $SWITCH_SWE_REQUEST_INDEX" >> "$SWITCH_SWE_WORKSPACE/bench-notes.txt"\n`, {
    mode: 0o755,
  });
  const passes = [
    { label: "nop agent, --sandbox bwrap", agent: "nop", agentOptions: {}, sandbox: "bwrap" },
    {
      label: "command agent (one line appended per request), --sandbox bwrap",
      agent: "command",
      agentOptions: { command: agentScript },
      sandbox: "bwrap",
    },
    {
      label: "command agent (one line appended per request), --sandbox none",
      agent: "command",
      agentOptions: { command: agentScript },
      sandbox: "none",
    },
  ];
  for (const [i, pass] of passes.entries()) {
    const setup = [];
    const collect = [];
    let sessionStart = 0;
    let last = 0;
    const meter = phaseMeter();
    observePhases(meter.observer);
    const t0 = performance.now();
    try {
      const outcome = await runSessions({
        out: join(root, `run-${i}`),
        resume: false,
        dataset: datasetDir,
        sessions: sessionsPath,
        sessionIds,
        agent: pass.agent,
        agentOptions: pass.agentOptions,
        sandbox: pass.sandbox,
        concurrency: 1,
        keepWorkspaces: false,
        verify: false,
        progress: (e) => {
          const now = performance.now();
          if (e.type === "session_start") sessionStart = now;
          if (e.type === "workspaces_ready") setup.push(now - sessionStart);
          if (e.type === "request_end") last = now;
          if (e.type === "session_end") collect.push(now - last);
        },
      });
      if (outcome.finished.length !== chosen.length)
        throw new Error(`${pass.label}: ${outcome.failed.length} session(s) failed: ${outcome.failed.join(", ")}`);
    } finally {
      meter.finish();
      observePhases(null);
    }
    const total = performance.now() - t0;
    printPhases(`${pass.label} (${(total / 1000).toFixed(1)} s in all)`, meter.totals, chosen.length, requests);
    if (i === 0) {
      console.log(`  workspace set-up per session (5 checkouts):          ${summary(setup)}`);
      console.log(`  last request to session end (5 patches, clean-up):   ${summary(collect)}`);
    }
  }
}

/** CPU and wall between two samples, in ms. */
const since = (a) => {
  const b = sample();
  return { wall: b.wall - a.wall, cpu: b.self + b.children - a.self - a.children };
};
const cost = (c) => `${ms(c.wall)} wall, ${ms(c.cpu)} CPU`;

/**
 * A session's harness phases on a generated large repository, in both workspace modes (copies, then
 * copy-on-write overlays where this machine can mount them): five workspaces set up with their first
 * evidence, REQUESTS requests that each change one file of one workspace followed by the evidence of
 * all five, then the five patches; the same functions the controller calls, without an agent.
 */
async function largeRepo() {
  const repoDir = join(root, "big", "repos", "big");
  const body = "x".repeat(Math.max(0, FILE_BYTES - 40));
  for (let d = 0; d < 200; d++) {
    const dir = join(repoDir, "src", `pkg${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES / 200; f++)
      writeFileSync(join(dir, `mod${f}.py`), `# module ${d}/${f}\nVALUE = ${d * 1000 + f}\n# ${body}\n`);
  }
  const ids = ["t0", "t1", "t2", "t3", "t4"];
  const dataset = {
    root: join(root, "big"),
    manifest: { name: "big", version: "1", repos: { big: { path: "repos/big" } } },
    tasks: ids.map((id) => ({
      id,
      repo: "big",
      base: "HEAD",
      requests: [{ text: "x" }],
      verifier: { fail_to_pass: [], pass_to_pass: [], timeout_s: 1 },
      dir: "",
      stagePatches: [""],
      testsPatch: "",
    })),
  };
  const pair = {
    id: "t0",
    focus: "t0",
    repo: "big",
    locality: "far",
    interruptions: ids.slice(1),
    workspaces: { w00: "t0", w01: "t1", w02: "t2", w03: "t3", w04: "t4" },
    source_files: {},
    schedules: { base: [], switch: [] },
  };
  let t = performance.now();
  await materializeRepo(dataset, "big");
  console.log(
    `generated repository: ${FILES} files of ${FILE_BYTES} bytes (${((FILES * FILE_BYTES) / 1e6).toFixed(0)} MB); first caching (one commit in the cache): ${ms(performance.now() - t)}`,
  );
  for (const mode of ["copy", "overlay"]) {
    if (mode === "copy") process.env.SWITCH_SWE_WORKSPACES = "copy";
    else delete process.env.SWITCH_SWE_WORKSPACES;
    for (let rep = 1; rep <= REPS; rep++) {
      const work = join(root, "big-work", `${mode}-${rep}`);
      let s0 = sample();
      const ws = await createWorkspaces(dataset, pair, work);
      const evidence = await WorkspaceEvidence.open(ws.paths, ws.layers);
      await evidence.snapshot();
      const setup = since(s0);
      if (ws.mode.kind !== mode) {
        console.log(`  ${mode}: not available here (${ws.mode.reason ?? ws.mode.kind})`);
        evidence.close();
        await removeWorkDir(work);
        break;
      }
      s0 = sample();
      for (let r = 0; r < REQUESTS; r++) {
        const w = workspaceNames[r % 5];
        writeFileSync(join(ws.paths[w], "src", `pkg${r}`, "mod0.py"), `changed = ${r}\n`);
        const snap = await evidence.snapshot();
        if (snap.changed[w]?.[0]?.path !== `src/pkg${r}/mod0.py`)
          throw new Error(`${mode}: evidence missed the change of request ${r}: ${JSON.stringify(snap.changed)}`);
      }
      const perRequest = since(s0);
      s0 = sample();
      const patches = await Promise.all(
        workspaceNames.map((w) =>
          collectPatch(
            ws.paths[w],
            ws.baseCommits[w],
            join(root, `big-${w}.patch`),
            ws.objectStores[w],
            ws.layers[w] ? overlayChangedPaths(ws.layers[w]) : undefined,
          ),
        ),
      );
      const collect = since(s0);
      s0 = sample();
      evidence.close();
      await removeWorkDir(work);
      const cleanup = since(s0);
      const files = patches
        .flatMap((p) => p.files)
        .sort()
        .join();
      const expected = Array.from({ length: REQUESTS }, (_, r) => `src/pkg${r}/mod0.py`)
        .sort()
        .join();
      if (files !== expected) throw new Error(`${mode}: unexpected artifacts: ${files}`);
      const per = { wall: perRequest.wall / REQUESTS, cpu: perRequest.cpu / REQUESTS };
      console.log(
        `  ${mode}, run ${rep}: set-up of five workspaces with their first evidence ${cost(setup)}; evidence per request ${cost(per)}; five patches ${cost(collect)}; clean-up ${cost(cleanup)}`,
      );
    }
  }
  delete process.env.SWITCH_SWE_WORKSPACES;
}

try {
  console.log(`load average at start: ${load()}`);
  await samplePasses();
  await largeRepo();
  console.log(`load average at end: ${load()}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
