import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { inputError } from "../core/errors.js";
import type { QueueTarget } from "./queue-url.js";

/**
 * A Redis connection that answered a PING within `timeoutMs`; otherwise bad input naming the queue by
 * its masked URL. Afterwards it reconnects by itself when Redis goes away for a while.
 */
export async function connectChecked(target: QueueTarget, timeoutMs = 10_000): Promise<Redis> {
  await probe(target, timeoutMs);
  const redis = new Redis(target.redis);
  redis.on("error", () => undefined);
  return redis;
}

/** One connection attempt, no retries: a PING answered, or bad input. */
async function probe(target: QueueTarget, timeoutMs: number): Promise<void> {
  const redis = new Redis({
    ...target.redis,
    lazyConnect: true,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    connectTimeout: timeoutMs,
  });
  let lastError = "";
  redis.on("error", (e: Error) => {
    lastError = e.message.replace(/redis(s)?:\/\/[^\s]*/g, target.display);
  });
  const ok = await Promise.race([
    redis
      .connect()
      .then(() => redis.ping())
      .then(
        () => true,
        () => false,
      ),
    new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs).unref()),
  ]);
  if (!ok) {
    redis.disconnect();
    throw inputError("--queue", "", `cannot reach ${target.display}${lastError ? ` (${lastError})` : ""}`);
  }
  redis.disconnect();
}

/**
 * A BullMQ queue whose connection is up. BullMQ connects in the background and, when the queue is closed
 * before that finished (a verify with nothing to send), emits the "Connection is closed" error on an
 * object nobody listens to, which ends the process (seen under load in CI): so wait for it.
 */
export async function openQueue(name: string, target: QueueTarget): Promise<Queue> {
  const queue = new Queue(name, { connection: target.redis });
  queue.on("error", () => undefined);
  await queue.waitUntilReady();
  return queue;
}
