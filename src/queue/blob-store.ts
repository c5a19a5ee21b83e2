import type { Redis } from "ioredis";
import { keys } from "./keys.js";

const chunkBytes = 4 * 1024 * 1024;

/** Whether the blob is in Redis whole (its chunk count is written last). */
export async function hasBlob(redis: Redis, digest: string): Promise<boolean> {
  return (await redis.exists(keys.blobMeta(digest))) === 1;
}

/** Stores a content-addressed blob in chunks (Redis values stay small); a no-op when it is there. */
export async function putBlob(redis: Redis, digest: string, data: Buffer): Promise<boolean> {
  if (await hasBlob(redis, digest)) return false;
  const n = Math.max(1, Math.ceil(data.length / chunkBytes));
  for (let i = 0; i < n; i++) await redis.set(keys.blobChunk(digest, i), data.subarray(i * chunkBytes, (i + 1) * chunkBytes));
  await redis.set(keys.blobMeta(digest), JSON.stringify({ chunks: n, bytes: data.length }));
  return true;
}

/** The blob's bytes, or null when Redis does not hold it (whole). */
export async function getBlob(redis: Redis, digest: string): Promise<Buffer | null> {
  const meta = await redis.get(keys.blobMeta(digest));
  if (meta === null) return null;
  const { chunks, bytes } = JSON.parse(meta) as { chunks: number; bytes: number };
  const parts: Buffer[] = [];
  for (let i = 0; i < chunks; i++) {
    const part = await redis.getBuffer(keys.blobChunk(digest, i));
    if (part === null) return null;
    parts.push(part);
  }
  const all = Buffer.concat(parts);
  return all.length === bytes ? all : null;
}
