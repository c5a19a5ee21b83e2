import { UnrecoverableError, type Job } from "bullmq";
import { confinementRefusal, type ConfinementFloor } from "./confinement-floor.js";
import type { QueueSecret } from "./queue-secret.js";
import { authenticateJob } from "./signed-job.js";

/**
 * A job's data (its MAC taken out) when this worker may run it: signed by a coordinator holding the
 * queue secret for this queue, name and id, and asking for no less confinement than the worker allows.
 * Otherwise one log line naming the job and why, and the job fails for good (UnrecoverableError: no
 * retry of a job that will never verify; the coordinator sees it failed, with the reason).
 */
export function admitJob(
  queue: string,
  raw: Job,
  w: { secret: QueueSecret; floor: ConfinementFloor; worker: string; log: (line: string) => void },
): Record<string, unknown> {
  const auth = authenticateJob(w.secret, queue, raw);
  const why = auth.ok ? confinementRefusal(queue, auth.data, w.floor) : `unauthenticated job: ${auth.why}`;
  if (why !== null || !auth.ok) {
    w.log(`refused job ${String(raw.id)} (${queue}, not run): ${why}`);
    throw new UnrecoverableError(`refused by worker ${w.worker}: ${why}`);
  }
  return auth.data;
}
