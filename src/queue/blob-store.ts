import type { Redis } from "ioredis";
import { InfraFault } from "../core/infra-fault.js";
import { keys } from "./keys.js";
import { queueSecretEnv, type QueueSecret } from "./queue-secret.js";

const chunkBytes = 4 * 1024 * 1024;

/** Whether the blob is in Redis whole, under this secret (its chunk count is written last). */
export async function hasBlob(redis: Redis, digest: string, secret: QueueSecret): Promise<boolean> {
  return (await redis.exists(keys.blobMeta(secret.id, digest))) === 1;
}

/**
 * Stores a content-addressed blob, encrypted with the queue secret (it holds the held-out tests), in
 * chunks (Redis values stay small); a no-op when it is there.
 */
export async function putBlob(redis: Redis, digest: string, data: Buffer, secret: QueueSecret): Promise<boolean> {
  if (await hasBlob(redis, digest, secret)) return false;
  const sealed = secret.encrypt(data, digest);
  const n = Math.max(1, Math.ceil(sealed.length / chunkBytes));
  for (let i = 0; i < n; i++) await redis.set(keys.blobChunk(secret.id, digest, i), sealed.subarray(i * chunkBytes, (i + 1) * chunkBytes));
  await redis.set(keys.blobMeta(secret.id, digest), JSON.stringify({ chunks: n, bytes: sealed.length }));
  return true;
}

/** The blob's plain bytes, or null when Redis does not hold it (whole); one that does not decrypt is an infrastructure fault. */
export async function getBlob(redis: Redis, digest: string, secret: QueueSecret): Promise<Buffer | null> {
  const meta = await redis.get(keys.blobMeta(secret.id, digest));
  if (meta === null) return null;
  const { chunks, bytes } = JSON.parse(meta) as { chunks: number; bytes: number };
  const parts: Buffer[] = [];
  for (let i = 0; i < chunks; i++) {
    const part = await redis.getBuffer(keys.blobChunk(secret.id, digest, i));
    if (part === null) return null;
    parts.push(part);
  }
  const all = Buffer.concat(parts);
  if (all.length !== bytes) return null;
  const plain = secret.decrypt(all, digest);
  if (plain === null)
    throw new InfraFault(
      `blob ${digest.slice(0, 12)} in the queue does not decrypt with this ${queueSecretEnv} (written by someone without it)`,
    );
  return plain;
}
