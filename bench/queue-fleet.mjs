// Throughput of a distributed run (npm run bench:queue), on the built code and a private redis-server:
// SESSIONS sessions of a scripted agent that sleeps 1 s per request, run by 1, 2, 4 and 8 worker
// processes (concurrency 1 each) on this machine. The sessions are the sample's, taken as several runs
// of the same sessions file coordinated at once (each run its own coordinator on the same queue).
// Prints wall time, the ideal (requests x 1 s / workers), their ratio, the coordinators' CPU per session and
// the workers' CPU per session (each worker process with the git, shell and sandbox processes it ran: what a
// session costs besides its requests, the figure that extrapolates to machines with a core per worker),
// and the load average before and after (the machine may be shared).
//   node bench/queue-fleet.mjs [--sessions 200] [--workers 1,2,4,8] [--sleep 1]
// At a realistic request time (a floor for a real model's turn): --sleep 10 --workers 1,2,4,8,16.
// Fewer sessions than the sample's 36 take the first pairs. BENCH_SMALL=1: 2 sessions, 1 worker, 0.1 s.
import { spawn } from "node:child_process";
import { startRedis } from "./redis.mjs";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { loadDataset } from "../dist/dataset/load.js";
import { buildSessions } from "../dist/sessions/build.js";
import { runSessions } from "../dist/run/runner.js";
import { QueueCoordinator } from "../dist/queue/coordinator.js";
import { parseQueueUrl } from "../dist/queue/queue-url.js";
import { QueueSecret } from "../dist/queue/queue-secret.js";

const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const SMALL = process.env.BENCH_SMALL === "1";
// The coordinator and the workers share one secret (results are signed and the dataset encrypted with it).
process.env.SWITCH_SWE_QUEUE_SECRET ??= randomBytes(32).toString("hex");
const secret = new QueueSecret(process.env.SWITCH_SWE_QUEUE_SECRET);
const sessionsWanted = Number(arg("sessions", SMALL ? "2" : "200"));
const fleets = arg("workers", SMALL ? "1" : "1,2,4,8")
  .split(",")
  .map(Number);
const sleepS = Number(arg("sleep", SMALL ? "0.1" : "1"));
const cli = new URL("../dist/cli/main.js", import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), "switch-swe-bench-queue-"));

const { url, process: redis } = await startRedis();

const datasetDir = new URL("../datasets/sample", import.meta.url).pathname;
const built = buildSessions(loadDataset(datasetDir), { seed: 0 });
const file = { ...built, pairs: built.pairs.slice(0, Math.max(1, Math.ceil(sessionsWanted / 2))) };
const sessionsPath = join(root, "sessions.json");
writeFileSync(sessionsPath, JSON.stringify(file));
const perRun = file.pairs.length * 2;
const runs = Math.max(1, Math.round(sessionsWanted / perRun));
const requests = runs * file.pairs.reduce((n, p) => n + p.schedules.base.length + p.schedules.switch.length, 0);
const agent = join(root, "agent.sh");
writeFileSync(agent, `#!/bin/sh\nsleep ${sleepS}\n`, { mode: 0o755 });
console.log(`${runs} runs x ${perRun} sessions = ${runs * perRun} sessions, ${requests} requests, agent sleeps ${sleepS} s per request`);

/** CPU seconds of a process and of the children it waited for (utime, stime, cutime, cstime). */
function cpuOf(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
}
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

async function fleet(n) {
  const workers = Array.from({ length: n }, (_, i) =>
    spawn(process.execPath, [cli, "worker", "--queue", url, "--concurrency", "1"], {
      env: { ...process.env, SWITCH_SWE_CACHE: join(root, `w${i}`) },
      stdio: "ignore",
    }),
  );
  await new Promise((r) => setTimeout(r, 2000));
  const loadBefore = load();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: runs }, (_, r) =>
      runSessions({
        out: join(root, `fleet${n}-run${r}`),
        resume: false,
        dataset: datasetDir,
        sessions: sessionsPath,
        agent: "command",
        agentOptions: { command: agent },
        concurrency: 1,
        keepWorkspaces: false,
        verify: false,
        progress: () => undefined,
        backend: new QueueCoordinator({ ...parseQueueUrl(url), secret }),
      }),
    ),
  );
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const workerCpu = workers.reduce((t, w) => t + cpuOf(w.pid), 0);
  for (const w of workers) w.kill("SIGTERM");
  await Promise.all(workers.map((w) => new Promise((r) => w.once("exit", r))));
  const ideal = (requests * sleepS) / n;
  const sessions = runs * perRun;
  const cpuPerSession = (cpu.user + cpu.system) / 1000 / sessions;
  const busy = (wall * n - requests * sleepS) / sessions;
  console.log(
    `${n} worker(s): wall ${wall.toFixed(1)} s, ideal ${ideal.toFixed(1)} s, ratio ${(wall / ideal).toFixed(2)}x; ` +
      `per session: coordinator CPU ${cpuPerSession.toFixed(1)} ms, worker CPU ${(workerCpu / sessions).toFixed(2)} s, worker time besides the requests ${busy.toFixed(2)} s; load ${loadBefore} -> ${load()}`,
  );
}

try {
  for (const n of fleets) await fleet(n);
} finally {
  redis.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
}
