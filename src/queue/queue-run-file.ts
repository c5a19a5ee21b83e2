import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { readJsonWith, writeJsonAtomic } from "../core/json-file.js";

/**
 * RUN_DIR/queue.json: written by the first `run --queue`, read by every later one. The run id names the
 * run's jobs and keys in Redis; the queue URL is recorded with its password masked.
 */
export const queueRunSchema = z
  .object({
    format: z.literal("switch-swe.queue-run/1"),
    run_id: z.string().regex(/^[0-9a-f]{16}$/),
    queue: z.string(),
    created_at: z.string(),
  })
  .strict();

export type QueueRun = z.infer<typeof queueRunSchema>;

export function queueRunFile(runDir: string): string {
  return join(runDir, "queue.json");
}

/** The run's queue.json, or null when the run never used a queue. */
export function readQueueRun(runDir: string): QueueRun | null {
  const file = queueRunFile(runDir);
  return existsSync(file) ? readJsonWith(file, queueRunSchema) : null;
}

/** queue.json of the run, created (with a new run id) when the run never used a queue. */
export function openQueueRun(runDir: string, display: string): { run: QueueRun; created: boolean } {
  const existing = readQueueRun(runDir);
  if (existing) return { run: existing, created: false };
  const run: QueueRun = {
    format: "switch-swe.queue-run/1",
    run_id: randomBytes(8).toString("hex"),
    queue: display,
    created_at: new Date().toISOString(),
  };
  writeJsonAtomic(queueRunFile(runDir), run);
  return { run, created: true };
}
