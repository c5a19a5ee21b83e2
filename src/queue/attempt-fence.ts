import type { Redis } from "ioredis";
import { resultTtlS } from "./keys.js";

/**
 * The fence between a coordinator that gives an attempt up (its worker stopped renewing the job's lock)
 * and a worker that comes back later with that attempt's result. The attempt's result key is written
 * once (SET NX) by whichever comes first: the worker's result, or this tombstone by the coordinator.
 * A tombstone means: attempt N is over as an infrastructure fault, attempt N+1 may run; a late result
 * of attempt N can then neither be stored nor read, so it never overwrites or doubles attempt N+1.
 */
const tombstone = Buffer.from("switch-swe:fenced\n");

export function isTombstone(data: Buffer): boolean {
  return data.equals(tombstone);
}

/**
 * The coordinator's side: fences the attempt off unless its result is already there. Returns null when
 * the attempt is fenced (now or by an earlier coordinator), or the result a worker stored just before.
 */
export async function fenceAttempt(redis: Redis, resultKey: string): Promise<Buffer | null> {
  const set = await redis.set(resultKey, tombstone, "EX", resultTtlS, "NX");
  if (set === "OK") return null;
  const data = await redis.getBuffer(resultKey);
  return data === null || isTombstone(data) ? null : data;
}

/** The worker's side: stores the result unless the attempt was fenced off (or already has one). */
export async function storeResult(redis: Redis, resultKey: string, data: Buffer): Promise<boolean> {
  return (await redis.set(resultKey, data, "EX", resultTtlS, "NX")) === "OK";
}

/**
 * Appends to a running attempt's trajectory copy unless the attempt is fenced (its result key exists),
 * in one step, so that a worker that comes back cannot recreate what the coordinator archived and removed.
 * Returns false when fenced.
 */
export async function appendUnlessFenced(redis: Redis, trajectoryKey: string, resultKey: string, bytes: Buffer): Promise<boolean> {
  const script =
    "if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end redis.call('APPEND', KEYS[1], ARGV[1]) redis.call('EXPIRE', KEYS[1], ARGV[2]) return 1";
  return (await redis.eval(script, 2, trajectoryKey, resultKey, bytes, String(resultTtlS))) === 1;
}
