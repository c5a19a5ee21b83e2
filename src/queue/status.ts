import type { Queue } from "bullmq";
import { keys, sessionQueue, taskQueue, verifyQueue } from "./keys.js";
import { connectChecked, openQueue } from "./connect.js";
import type { QueueTarget } from "./queue-url.js";

export interface QueueStatus {
  queue: string;
  /** `running`: a session attempt (`session`, `attempt`) or a mining or qualification job (`job`: what it tests). */
  workers: Array<{
    name: string;
    host: string;
    version: string;
    concurrency: number;
    running: Array<{ run: string; session?: string; attempt?: number; job?: string; since: string }>;
    seen: string;
  }>;
  /** `kind`: a run of sessions, a mining run (`sessions`: its candidates) or a qualification (`sessions`: its tasks). */
  runs: Array<{
    id: string;
    kind: "run" | "mine" | "qualify";
    run_dir: string;
    label: string;
    sessions: number;
    coordinator: string | null;
    waiting: number;
    running: number;
    verifying: number;
  }>;
  counts: Record<"sessions" | "verify" | "tasks", Record<string, number>>;
}

/** A worker whose heartbeat is older than this is gone (it beats every 5 s). */
const staleMs = 30_000;

/** `queue status`: live workers and what they run, runs with their coordinators, job counts. */
export async function queueStatus(target: QueueTarget): Promise<QueueStatus> {
  const redis = await connectChecked(target);
  // Opened one by one inside the try: a queue that fails to open must not leave the others connected.
  const opened: Queue[] = [];
  const open = async (name: string) => {
    const q = await openQueue(name, target);
    opened.push(q);
    return q;
  };
  try {
    const sq = await open(sessionQueue);
    const vq = await open(verifyQueue);
    const tq = await open(taskQueue);
    const beats = await redis.hgetall(keys.workers());
    const workers: QueueStatus["workers"] = [];
    for (const [name, text] of Object.entries(beats)) {
      const b = JSON.parse(text) as {
        host: string;
        version: string;
        concurrency: number;
        running: QueueStatus["workers"][number]["running"];
        time: string;
      };
      if (Date.now() - Date.parse(b.time) > staleMs) continue;
      workers.push({ name, host: b.host, version: b.version, concurrency: b.concurrency, running: b.running, seen: b.time });
    }
    // Sessions, and mining and qualification jobs (a run has one kind or the other).
    const waiting = [
      ...(await sq.getJobs(["waiting", "delayed", "prioritized"])),
      ...(await tq.getJobs(["waiting", "delayed", "prioritized"])),
    ];
    const active = [...(await sq.getJobs(["active"])), ...(await tq.getJobs(["active"]))];
    const verifying = await vq.getJobs(["waiting", "delayed", "prioritized", "active"]);
    const count = (jobs: Array<{ id?: string | undefined } | undefined>, runId: string) =>
      jobs.filter((j) => j?.id?.startsWith(`${runId}.`)).length;
    const runs: QueueStatus["runs"] = [];
    for (const [id, text] of Object.entries(await redis.hgetall(keys.runs()))) {
      const info = JSON.parse(text) as { run_dir: string; label: string; sessions: number; kind?: "mine" | "qualify" };
      const holder = await redis.get(keys.coordinator(id));
      const r = {
        id,
        kind: info.kind ?? ("run" as const),
        run_dir: info.run_dir,
        label: info.label,
        sessions: info.sessions,
        coordinator: holder ? holder.split(" ").slice(0, 2).join(" pid ") : null,
        waiting: count(waiting, id),
        running: count(active, id),
        verifying: count(verifying, id),
      };
      if (r.coordinator !== null || r.waiting + r.running + r.verifying > 0) runs.push(r);
    }
    return {
      queue: target.display,
      workers: workers.sort((a, b) => a.name.localeCompare(b.name)),
      runs,
      counts: {
        sessions: await sq.getJobCounts("waiting", "active", "delayed", "failed"),
        verify: await vq.getJobCounts("waiting", "active", "delayed", "failed"),
        tasks: await tq.getJobCounts("waiting", "active", "delayed", "failed"),
      },
    };
  } finally {
    await Promise.all(opened.map((q) => q.close())).catch(() => undefined);
    redis.disconnect();
  }
}

export function formatStatus(s: QueueStatus): string {
  const lines = [
    `queue ${s.queue}`,
    `sessions: ${s.counts.sessions.waiting ?? 0} waiting, ${s.counts.sessions.active ?? 0} running, ${s.counts.sessions.delayed ?? 0} delayed, ${s.counts.sessions.failed ?? 0} failed (kept 7 days)`,
  ];
  lines.push(`verifications: ${s.counts.verify.waiting ?? 0} waiting, ${s.counts.verify.active ?? 0} running`);
  lines.push(
    `mining and qualification jobs: ${s.counts.tasks.waiting ?? 0} waiting, ${s.counts.tasks.active ?? 0} running, ${s.counts.tasks.failed ?? 0} failed`,
  );
  lines.push(`workers: ${s.workers.length}`);
  for (const w of s.workers) {
    const jobs = w.running.map((r) => r.job ?? `${r.session}#${r.attempt}`).join(", ");
    lines.push(`  ${w.name}  switch-swe ${w.version}  ${w.running.length}/${w.concurrency}${jobs ? `  ${jobs}` : ""}`);
  }
  lines.push(`runs: ${s.runs.length}`);
  for (const r of s.runs) {
    const what = r.kind === "mine" ? `${r.sessions} candidates` : r.kind === "qualify" ? `${r.sessions} tasks` : `${r.sessions} sessions`;
    const verifying = r.kind === "run" ? `, ${r.verifying} verifications` : "";
    lines.push(
      `  ${r.id}  ${r.run_dir}  "${r.label}"  ${what}: ${r.waiting} queued, ${r.running} running${verifying}; coordinator ${r.coordinator ?? "none"}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
