import type { Command } from "commander";
import { inputError } from "../../core/errors.js";
import { toJsonText } from "../../core/json-file.js";
import { parseQueueUrl, queueUrlEnv, queueUrlFrom, type QueueTarget } from "../../queue/queue-url.js";
import { takeQueueSecret, type SecuredQueue } from "../../queue/queue-secret.js";
import { scrubEnvironment } from "../../queue/worker-env.js";
import { wipeInitialEnvironment } from "../../queue/initial-env.js";
import { collect, parsePositive } from "../options.js";

/** The queue named by `--queue URL` (or `--queue` alone and $SWITCH_SWE_QUEUE). */
export function queueTarget(option: string | boolean | undefined): QueueTarget {
  const url = queueUrlFrom(typeof option === "string" ? option : undefined);
  if (url === undefined) throw inputError("--queue", "", `no URL: give --queue redis://HOST:PORT/DB or set ${queueUrlEnv}`);
  return parseQueueUrl(url);
}

/** The queue a coordinator or worker runs on: its URL and the shared secret (taken out of the environment). */
export function securedQueueTarget(option: string | boolean | undefined): SecuredQueue {
  return { ...queueTarget(option), secret: takeQueueSecret() };
}

function positiveSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw inputError("--stall-timeout", "", `"${value}" is not a positive number of seconds`);
  return n;
}

interface WorkerFlags {
  queue?: string | boolean;
  concurrency: number;
  stallTimeout: string;
  passEnv?: string[];
  workDir?: string;
  allowUnconfined?: boolean;
  allowNetwork?: boolean;
}

/** `worker` (take jobs from a queue) and `queue status`. */
export function registerQueue(program: Command): void {
  program
    .command("worker")
    .description("run sessions, verifications, mining and qualification jobs from a Redis queue (see `run --queue`) until stopped")
    .option("--queue [url]", `redis://[:password@]HOST:PORT/DB or rediss://... (default: $${queueUrlEnv})`)
    .option("--concurrency <n>", "sessions at once", parsePositive("--concurrency"), 1)
    .option("--stall-timeout <seconds>", "a job whose lock is not renewed this long counts as stalled (its worker died)", "30")
    .option(
      "--pass-env <name>",
      "pass this environment variable to agents (repeatable); all others but PATH, HOME, LANG... are removed",
      collect,
    )
    .option("--work-dir <dir>", "where session workspaces live (default: the cache's queue/work)")
    .option(
      "--allow-unconfined",
      "run jobs that ask for no sandbox (`--sandbox none`: agents and test runs as this worker's user, outside any sandbox); refused (the job fails with the reason) without it",
    )
    .option(
      "--allow-network",
      "run session jobs whose agents get this machine's network (`--network on`: this queue's Redis and the LAN included); refused without it",
    )
    .addHelpText(
      "after",
      "\nA job runs only when the coordinator signed it with $SWITCH_SWE_QUEUE_SECRET for its queue\nand id, and asks for no less confinement than allowed above; any other job is refused with\none line on stderr and fails (never runs). See docs/queue.md, Security.",
    )
    .action(async (o: WorkerFlags) => {
      const target = securedQueueTarget(o.queue ?? true);
      const stallTimeoutS = positiveSeconds(o.stallTimeout);
      delete process.env[queueUrlEnv];
      const { runWorker } = await import("../../queue/worker.js");
      // Neither the queue (its URL may hold Redis's password) nor anything scrubbed stays readable in /proc/<pid>/environ.
      wipeInitialEnvironment([queueUrlEnv, ...scrubEnvironment(o.passEnv ?? [])]);
      const stop = new AbortController();
      let signals = 0;
      const onSignal = (sig: NodeJS.Signals) => {
        if (++signals > 1) process.exit(130);
        process.stderr.write(`${sig}: stopping the worker (again to quit at once)\n`);
        stop.abort();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      await runWorker({
        target,
        concurrency: o.concurrency,
        stallTimeoutS,
        floor: { unconfined: o.allowUnconfined === true, network: o.allowNetwork === true },
        ...(o.workDir !== undefined ? { workRoot: o.workDir } : {}),
        log: (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`),
        signal: stop.signal,
      });
    });

  program
    .command("queue")
    .description("the Redis queue of `run --queue` and `worker`")
    .command("status")
    .description("live workers and what they run, runs and their coordinators, job counts")
    .argument("[url]", `queue URL (default: $${queueUrlEnv})`)
    .option("--json", "print as JSON")
    .action(async (url: string | undefined, o: { json?: boolean }) => {
      const target = queueTarget(url ?? true);
      const { formatStatus, queueStatus } = await import("../../queue/status.js");
      const status = await queueStatus(target);
      process.stdout.write(o.json ? toJsonText(status) : formatStatus(status));
    });
}
