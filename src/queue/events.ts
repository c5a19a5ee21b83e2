import type { Redis } from "ioredis";
import type { ProgressEvent } from "../run/progress-events.js";
import { keys } from "./keys.js";

/** A progress event as a worker publishes it: which worker, which attempt of which session, and the event. */
export interface WorkerEvent {
  worker: string;
  session?: string;
  attempt?: number;
  event: ProgressEvent;
}

/** Publishes a worker's progress event to its run's stream (best effort: progress is never a result). */
export function publishEvent(redis: Redis, runId: string, e: WorkerEvent): void {
  redis.xadd(keys.events(runId), "MAXLEN", "~", "100000", "*", "e", JSON.stringify(e)).catch(() => undefined);
}

/** Reads the events published since `lastId` (without blocking); returns them and the new position. */
export async function readEvents(redis: Redis, runId: string, lastId: string): Promise<{ events: WorkerEvent[]; lastId: string }> {
  const r = (await redis.xread("COUNT", 1000, "STREAMS", keys.events(runId), lastId)) as Array<[string, Array<[string, string[]]>]> | null;
  const events: WorkerEvent[] = [];
  let last = lastId;
  for (const [, entries] of r ?? []) {
    for (const [id, fields] of entries) {
      last = id;
      const i = fields.indexOf("e");
      if (i < 0) continue;
      try {
        events.push(JSON.parse(fields[i + 1] ?? "") as WorkerEvent);
      } catch {
        // a malformed entry is progress lost, nothing more
      }
    }
  }
  return { events, lastId: last };
}
