// Verifies a run over the sample dataset: every task's reference (cumulative stages) as the `base`
// session and an empty artifact as the `switch` session. The sample's repositories get a set-up
// command (a venv) so the environment cache is exercised: a cold pass sets up once per repository,
// a warm pass (--force) must reuse every environment, and a second verification of the same task
// must skip set-up entirely.
// Run: npm run bench:verify   (prints wall times, per-verification times and set-up counts)
// BENCH_SMALL=1: the first task only (two sessions).
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadDataset, taskById } from "../dist/dataset/load.js";
import { checkoutAt, materializeRepo, resolveBase } from "../dist/dataset/repo-cache.js";
import { verifyRun } from "../dist/verify/run-verify.js";
import { verifyArtifact } from "../dist/verify/verify-artifact.js";
import { sampleDatasetDir } from "../dist/core/package-paths.js";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2);
const work = mkdtempSync(join(tmpdir(), "switch-swe-bench-verify-"));
process.env.SWITCH_SWE_CACHE = join(work, "cache");
const counter = join(work, "setup-runs.txt");

const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const git = (cwd, ...args) => execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8", maxBuffer: 1 << 28 });

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `n=${s.length} mean ${(mean / 1000).toFixed(2)} s, median ${(q(0.5) / 1000).toFixed(2)} s, p90 ${(q(0.9) / 1000).toFixed(2)} s, max ${(s[s.length - 1] / 1000).toFixed(2)} s`;
}

try {
  // 1. The sample dataset with a set-up per repository.
  const datasetDir = join(work, "dataset");
  cpSync(sampleDatasetDir, datasetDir, { recursive: true });
  const manifestFile = join(datasetDir, "dataset.json");
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
  for (const repo of Object.values(manifest.repos)) {
    repo.environment = {
      ...repo.environment,
      setup: [`python3 -m venv --without-pip --system-site-packages "$SWITCH_SWE_ENV/venv"`, `echo "$PWD" >> ${counter}`],
    };
  }
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  const dataset = loadDataset(datasetDir);

  // 2. A run directory: reference artifacts (all stages, as one diff) and empty ones.
  const runDir = join(work, "run");
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, "run.json"), JSON.stringify({ dataset: { path: datasetDir } }));
  const tasks = process.env.BENCH_SMALL === "1" ? dataset.tasks.slice(0, 1) : dataset.tasks;
  for (const task of tasks) {
    const repo = await materializeRepo(dataset, task.repo);
    const commit = await resolveBase(repo, task.base);
    const co = join(work, "refs", task.id);
    await checkoutAt(repo, commit, co);
    task.stagePatches.forEach((p, k) => {
      const f = join(work, "refs", `${task.id}.stage-${k + 1}.patch`);
      writeFileSync(f, p);
      git(co, "apply", f);
    });
    git(co, "add", "-A");
    const reference = git(co, "diff", "--cached", "--binary", "HEAD");
    for (const [condition, artifact] of [
      ["base", reference],
      ["switch", ""],
    ]) {
      const dir = join(runDir, "sessions", `${task.id}.${condition}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "artifact.patch"), artifact);
    }
  }
  const sessions = tasks.length * 2;
  console.log(
    `sample dataset: ${tasks.length} of ${dataset.tasks.length} tasks, ${Object.keys(dataset.manifest.repos).length} repositories; ${sessions} sessions; concurrency ${CONCURRENCY}`,
  );

  // 3. Cold pass: set-up runs once per repository.
  let t0 = Date.now();
  const cold = await verifyRun(runDir, { concurrency: CONCURRENCY });
  const coldWall = Date.now() - t0;
  const coldV = Object.values(cold.verdicts);
  const setupRuns = () => readFileSync(counter, "utf8").split("\n").filter(Boolean).length;
  console.log(
    `cold pass: ${(coldWall / 1000).toFixed(1)} s wall; set-up ran ${setupRuns()} time(s); per verification ${stats(coldV.map((v) => v.duration_ms))}`,
  );
  const wrong = coldV.filter((v) => v.resolved !== v.session.endsWith(".base") || v.infra_fault);
  if (wrong.length > 0)
    throw new Error(`unexpected verdicts: ${wrong.map((v) => `${v.session} resolved=${v.resolved} infra=${v.infra_fault}`).join(", ")}`);

  // 4. Warm pass: every environment is reused.
  const before = setupRuns();
  t0 = Date.now();
  const warm = await verifyRun(runDir, { concurrency: CONCURRENCY, force: true });
  const warmWall = Date.now() - t0;
  const warmV = Object.values(warm.verdicts);
  const testMs = warmV.map((v) => Number(/after (\d+) ms; results from/.exec(readFileSync(join(runDir, v.log), "utf8"))?.[1] ?? 0));
  console.log(
    `warm pass: ${(warmWall / 1000).toFixed(1)} s wall (${(((warmWall / sessions) * CONCURRENCY) / 1000).toFixed(2)} s per verification per worker); ` +
      `set-up ran ${setupRuns() - before} time(s); ${warmV.filter((v) => v.setup_cached).length}/${warmV.length} with setup_cached; per verification ${stats(warmV.map((v) => v.duration_ms))}`,
  );
  console.log(`  of which the test command itself: ${stats(testMs)}`);
  // Reference artifacts resolve and get the confirming second run; empty ones do not.
  for (const [label, suffix] of [
    ["reference (resolved)", ".base"],
    ["empty (unresolved)", ".switch"],
  ])
    console.log(`  ${label}: ${stats(warmV.filter((v) => v.session.endsWith(suffix)).map((v) => v.duration_ms))}`);
  if (setupRuns() !== before || !warmV.every((v) => v.setup_cached)) throw new Error("the warm pass ran set-up");
  const warmWrong = warmV.filter((v) => v.resolved !== v.session.endsWith(".base") || v.infra_fault);
  if (warmWrong.length > 0)
    throw new Error(
      `unexpected verdicts: ${warmWrong.map((v) => `${v.session} resolved=${v.resolved} infra=${v.infra_fault}`).join(", ")}`,
    );
  // What was planted (a mutant: expected failed with an original; a twin: expected passed with one; else a constant).
  const planted = [...coldV, ...warmV].flatMap((v) => v.canaries?.tests ?? []);
  const kind = (t) => (t.of === undefined ? "constant" : t.expected === "failed" ? "mutant" : "twin");
  const per = (k) => (planted.filter((t) => kind(t) === k).length / (coldV.length + warmV.length)).toFixed(2);
  console.log(
    `  canaries per verification: ${per("mutant")} mutants, ${per("twin")} twins, ${per("constant")} constants; untrusted runs: ${[...coldV, ...warmV].filter((v) => v.canaries && !v.canaries.trusted).length}`,
  );

  // 5. The same task verified again, alone: set-up is skipped entirely.
  const task = taskById(dataset).get(dataset.tasks[0].id);
  const artifact = readFileSync(join(runDir, "sessions", `${task.id}.base`, "artifact.patch"), "utf8");
  t0 = Date.now();
  const again = await verifyArtifact({
    dataset,
    task,
    artifactText: artifact,
    workRoot: join(work, "again"),
    logFile: join(work, "again.log"),
  });
  console.log(
    `second verification of ${task.id}: ${((Date.now() - t0) / 1000).toFixed(2)} s, setup_cached=${again.setup_cached}, resolved=${again.resolved}; set-up runs in total: ${setupRuns()}`,
  );
  if (!again.setup_cached || setupRuns() !== before) throw new Error("the second verification ran set-up");
} finally {
  rmSync(work, { recursive: true, force: true });
}
