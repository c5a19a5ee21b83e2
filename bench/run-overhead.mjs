// Harness overhead of `switch-swe run`, measured on the built code (npm run bench:run):
//  1. per request, with the `nop` agent over the sample sessions: the time the controller adds
//     around each request (message, trajectory lines, progress), median and p95;
//  2. per session: workspace set-up (five checkouts) and artifact collection for the sample repositories;
//  3. five checkouts of a generated repository with 20,000 files (the same code path as a session).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { loadDataset } from "../dist/dataset/load.js";
import { materializeRepo } from "../dist/dataset/repo-cache.js";
import { buildSessions } from "../dist/sessions/build.js";
import { runSessions } from "../dist/run/runner.js";
import { collectPatch } from "../dist/run/artifact.js";
import { createWorkspaces, removeWorkDir } from "../dist/run/workspaces.js";

const root = mkdtempSync(join(tmpdir(), "switch-swe-bench-run-"));
process.env.SWITCH_SWE_CACHE = join(root, "cache");

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const ms = (x) => `${x.toFixed(1)} ms`;
const summary = (xs) => `median ${ms(quantile(xs, 0.5))}, p95 ${ms(quantile(xs, 0.95))}, max ${ms(Math.max(...xs))} (n=${xs.length})`;

async function sampleRun() {
  const datasetDir = new URL("../datasets/sample", import.meta.url).pathname;
  const dataset = loadDataset(datasetDir);
  const sessionsPath = join(root, "sessions.json");
  const file = buildSessions(dataset, { seed: 0 });
  writeFileSync(sessionsPath, JSON.stringify(file));
  const requestsOf = new Map(file.pairs.flatMap((p) => [[`${p.id}.base`, p.schedules.base.length], [`${p.id}.switch`, p.schedules.switch.length]]));
  // Warm the repository cache once, as any run after the first would find it.
  for (const name of Object.keys(dataset.manifest.repos)) await materializeRepo(dataset, name);

  const perRequest = [];
  const perSessionRequest = [];
  const setup = [];
  const collect = [];
  let last = 0;
  let sessionStart = 0;
  const t0 = performance.now();
  await runSessions({
    out: join(root, "run-nop"),
    resume: false,
    dataset: datasetDir,
    sessions: sessionsPath,
    agent: "nop",
    agentOptions: {},
    concurrency: 1,
    keepWorkspaces: false,
    verify: false,
    progress: (e) => {
      const now = performance.now();
      if (e.type === "session_start") sessionStart = now;
      if (e.type === "session_end") perSessionRequest.push((now - sessionStart) / requestsOf.get(e.session));
      if (e.type === "workspaces_ready") {
        setup.push(now - sessionStart);
        last = now;
      }
      if (e.type === "request_end") {
        perRequest.push(now - last);
        last = now;
      }
      if (e.type === "session_end") collect.push(now - last);
    },
  });
  const total = performance.now() - t0;
  console.log(`sample dataset: ${dataset.tasks.length} tasks, ${file.pairs.length} pairs, ${perRequest.length} requests, ${setup.length} sessions, ${(total / 1000).toFixed(1)} s in all`);
  console.log(`  overhead per request (nop agent, request to request): ${summary(perRequest)}`);
  console.log(`  whole session time per request (set-up and collection included): ${summary(perSessionRequest)}`);
  console.log(`  workspace set-up per session (5 checkouts):          ${summary(setup)}`);
  console.log(`  artifact collection per session (5 patches):         ${summary(collect)}`);
}

async function largeRepo() {
  const repoDir = join(root, "big", "repos", "big");
  const files = 20_000;
  for (let d = 0; d < 200; d++) {
    const dir = join(repoDir, "src", `pkg${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < files / 200; f++) writeFileSync(join(dir, `mod${f}.py`), `# module ${d}/${f}\nVALUE = ${d * 1000 + f}\n`);
  }
  const ids = ["t0", "t1", "t2", "t3", "t4"];
  const dataset = {
    root: join(root, "big"),
    manifest: { name: "big", version: "1", repos: { big: { path: "repos/big" } } },
    tasks: ids.map((id) => ({ id, repo: "big", base: "HEAD", requests: [{ text: "x" }], verifier: { fail_to_pass: [], pass_to_pass: [], timeout_s: 1 }, dir: "", stagePatches: [""], testsPatch: "" })),
  };
  const pair = { id: "t0", focus: "t0", repo: "big", locality: "far", interruptions: ids.slice(1), workspaces: { w00: "t0", w01: "t1", w02: "t2", w03: "t3", w04: "t4" }, source_files: {}, schedules: { base: [], switch: [] } };
  let t = performance.now();
  await materializeRepo(dataset, "big");
  console.log(`generated repository: ${files} files; first caching (one commit in the cache): ${ms(performance.now() - t)}`);
  for (let rep = 1; rep <= 3; rep++) {
    const work = join(root, "big-work", String(rep));
    t = performance.now();
    const ws = await createWorkspaces(dataset, pair, work);
    const setupMs = performance.now() - t;
    writeFileSync(join(ws.paths.w00, "src", "pkg0", "mod0.py"), "changed = 1\n");
    t = performance.now();
    await collectPatch(ws.paths.w00, ws.baseCommits.w00, join(root, "big.patch"));
    const collectMs = performance.now() - t;
    await removeWorkDir(work);
    console.log(`  five checkouts of the 20,000-file repository, run ${rep}: ${ms(setupMs)}; artifact of one workspace: ${ms(collectMs)}`);
  }
}

try {
  await sampleRun();
  await largeRepo();
} finally {
  rmSync(root, { recursive: true, force: true });
}
