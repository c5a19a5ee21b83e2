// Times the whole pipeline on one shipped real dataset (datasets/real/NAME/manifest.json):
// materialize from a local mirror, validate, qualify, build sessions (and their profile), run the
// oracle and `nop` agents, verify with a cold environment cache and again warm (--force), report,
// and replay the oracle's switched sessions through RCM (`rcm eval`).
// Run: npm run build && SWITCH_SWE_REAL_MIRRORS=/work/.mirror node bench/real-pipeline.mjs NAME
// Options (environment): BENCH_PAIRS=k (at most k near and k far sessions, as many as there are; default 2),
// BENCH_QUALIFY_TASKS=n (tasks qualified, default 2), BENCH_RUNS=n (qualify runs, default 3),
// BENCH_CONCURRENCY=n (default 2), BENCH_QUALIFY_SUITE=whole|touched (default whole; touched for suites
// that take hours, as sympy's). Prints one line per step with its wall time and the load average.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cliPath = join(root, "dist", "cli", "main.js");
const name = process.argv[2];
const mirrors = process.env.SWITCH_SWE_REAL_MIRRORS;
if (!name || !mirrors) {
  process.stderr.write("usage: SWITCH_SWE_REAL_MIRRORS=DIR node bench/real-pipeline.mjs NAME (a directory of datasets/real)\n");
  process.exit(2);
}
const PAIRS = Number(process.env.BENCH_PAIRS ?? 2);
const QUALIFY = Number(process.env.BENCH_QUALIFY_TASKS ?? 2);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONC = String(process.env.BENCH_CONCURRENCY ?? 2);
const SUITE = process.env.BENCH_QUALIFY_SUITE ?? "whole";
const work = mkdtempSync(join(tmpdir(), "switch-swe-bench-real-"));
const env = { ...process.env, SWITCH_SWE_CACHE: join(work, "cache") };
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

function step(label, args, opts = {}) {
  const t0 = Date.now();
  let out = "";
  let code = 0;
  try {
    out = execFileSync(process.execPath, [cliPath, ...args], {
      env: opts.env ?? env,
      encoding: "utf8",
      maxBuffer: 1 << 28,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (e) {
    out = `${e.stdout ?? ""}${e.stderr ?? ""}`;
    code = e.status ?? 1;
  }
  const s = (Date.now() - t0) / 1000;
  process.stdout.write(
    `${label.padEnd(34)} ${s.toFixed(1).padStart(7)} s  exit ${code}  (load ${load()})${opts.per ? `  ${(s / opts.per).toFixed(1)} s per ${opts.perWhat}` : ""}\n`,
  );
  if (code !== 0 && !opts.mayFail) {
    process.stdout.write(out);
    throw new Error(`${label} failed`);
  }
  return out;
}

function mirrorOf(url) {
  const m = /^https:\/\/github\.com\/([\w.-]+)\/([\w.-]+)$/.exec(url);
  const dir = join(mirrors, `${m[1]}+${m[2]}`);
  return existsSync(join(dir, "repo")) ? join(dir, "repo") : dir;
}

try {
  const file = join(root, "datasets", "real", name, "manifest.json");
  const manifest = JSON.parse(readFileSync(file, "utf8"));
  const repoArgs = Object.entries(manifest.repos).flatMap(([repo, r]) => ["--repo", `${repo}=${mirrorOf(r.git)}`]);
  const ds = join(work, "dataset");
  process.stdout.write(`${name}: ${manifest.tasks.length} tasks; work in ${work}\n`);
  step("materialize", ["datasets", "materialize", file, "--out", ds, ...repoArgs]);
  step("validate", ["tasks", "validate", ds]);
  const ids = manifest.tasks.slice(0, QUALIFY).map((t) => t.id);
  const q = step(
    `qualify ${ids.length} task(s), --runs ${RUNS} --suite ${SUITE}`,
    ["tasks", "qualify", ds, "--runs", String(RUNS), "--suite", SUITE, "--concurrency", CONC, ...ids.flatMap((id) => ["--task", id])],
    {
      per: ids.length,
      perWhat: "task",
      mayFail: true,
    },
  );
  process.stdout.write(
    q
      .split("\n")
      .filter((l) => /qualif/.test(l))
      .slice(-3)
      .map((l) => `    ${l}\n`)
      .join(""),
  );
  const sessions = join(work, "sessions.json");
  const all = step("sessions build (all)", ["sessions", "build", ds, "--seed", "0", "--out", join(work, "all-sessions.json")]);
  process.stdout.write(`    ${all.trim().split("\n").slice(-1)[0]}\n`);
  process.stdout.write(
    step("sessions stats (all)", ["sessions", "stats", join(work, "all-sessions.json")])
      .split("\n")
      .map((l) => `    ${l}`)
      .join("\n") + "\n",
  );
  const pairs = JSON.parse(readFileSync(join(work, "all-sessions.json"), "utf8")).pairs;
  if (pairs.length === 0) {
    process.stdout.write(
      "no session pairs can be formed (too few tasks per repository that share no source file): run, verify and report skipped\n",
    );
  } else {
    // At most PAIRS of each locality, as many as the dataset has (a dataset may have only one).
    const near = Math.min(PAIRS, pairs.filter((p) => p.locality === "near").length);
    const far = Math.min(PAIRS, pairs.filter((p) => p.locality === "far").length);
    step(`sessions build (${near} near, ${far} far)`, [
      "sessions",
      "build",
      ds,
      "--seed",
      "0",
      "--near",
      String(near),
      "--far",
      String(far),
      "--out",
      sessions,
    ]);
    const n = 2 * (near + far);
    for (const agent of ["oracle", "nop"]) {
      const run = join(work, `run-${agent}`);
      step(`run ${agent} (${n} sessions, no verify)`, [
        "run",
        "--dataset",
        ds,
        "--sessions",
        sessions,
        "--agent",
        agent,
        "--out",
        run,
        "--concurrency",
        CONC,
        "--no-verify",
        "--quiet",
      ]);
      rmSync(join(work, "cache", "envs"), { recursive: true, force: true });
      step(`verify ${agent}, cold environments`, ["verify", run, "--concurrency", CONC], {
        per: n,
        perWhat: "session",
        mayFail: agent === "nop",
      });
      step(`verify ${agent}, warm (--force)`, ["verify", run, "--concurrency", CONC, "--force"], {
        per: n,
        perWhat: "session",
        mayFail: agent === "nop",
      });
    }
    const report = step("report (oracle, nop)", ["report", join(work, "run-oracle"), join(work, "run-nop"), "--resamples", "1000"]);
    process.stdout.write(
      report
        .split("\n")
        .slice(0, 14)
        .map((l) => `    ${l}`)
        .join("\n") + "\n",
    );
    // RCM's offline replay of the oracle's switched sessions, with and without the Workspace: lines.
    const rcm = step("rcm eval (oracle run)", ["rcm", "eval", join(work, "run-oracle")], { mayFail: true });
    process.stdout.write(
      rcm
        .trim()
        .split("\n")
        .map((l) => `    ${l}`)
        .join("\n") + "\n",
    );
  }
} finally {
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
}
