import { resolve } from "node:path";
import { inputError } from "../../core/errors.js";
import { readQueueRun } from "../../queue/queue-run-file.js";
import type { SessionBackend } from "../../run/session-backend.js";
import { securedQueueTarget } from "./queue.js";

/**
 * `run --queue`: the coordinator backend. A run that was coordinated through a queue is resumed only
 * through one (its attempts may still be running on workers). The coordinator (BullMQ and its Redis
 * client, about a quarter of a second of CPU to load) is loaded only for a run that asks for a queue.
 */
export async function queueBackendFor(
  queue: string | boolean | undefined,
  out: string,
  resume: boolean,
): Promise<SessionBackend | undefined> {
  if (queue === undefined) {
    const recorded = resume ? readQueueRunQuietly(out) : null;
    if (recorded)
      throw inputError(
        resolve(out),
        "",
        `the run was coordinated through ${recorded}: resume it with --queue URL (its attempts may still run on workers)`,
      );
    return undefined;
  }
  const target = securedQueueTarget(queue);
  const { QueueCoordinator } = await import("../../queue/coordinator.js");
  return new QueueCoordinator(target);
}

function readQueueRunQuietly(out: string): string | null {
  try {
    return readQueueRun(resolve(out))?.queue ?? null;
  } catch {
    return null;
  }
}
