import { existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { cacheRoot } from "../dataset/repo-cache.js";
import { loadDataset, type Dataset } from "../dataset/load.js";
import { InfraFault } from "../core/infra-fault.js";
import { getBlob } from "./blob-store.js";
import { unpackDataset } from "../dataset/pack.js";
import { withBundles } from "./repo-bundles.js";
import type { QueueSecret } from "./queue-secret.js";

/** Where a worker keeps the datasets it received, by digest. */
export function datasetCacheDir(digest: string): string {
  return join(cacheRoot(), "queue", "datasets", digest);
}

const loaded = new Map<string, Promise<Dataset>>();

/**
 * A job's dataset from this machine's cache, fetched from Redis once (content-addressed), with the
 * bundles of its repositories that live outside the dataset directory (fetched once each too).
 */
export async function workerDataset(
  redis: Redis,
  secret: QueueSecret,
  d: { digest: string; name: string; version: string; repos?: Record<string, string> | undefined },
): Promise<Dataset> {
  return withBundles(redis, secret, await packedDataset(redis, secret, d.digest, d.name, d.version), d.repos ?? {});
}

function packedDataset(redis: Redis, secret: QueueSecret, digest: string, name: string, version: string): Promise<Dataset> {
  let p = loaded.get(digest);
  if (!p) {
    p = fetchDataset(redis, secret, digest);
    loaded.set(digest, p);
    p.catch(() => loaded.delete(digest));
  }
  return p.then((d) => {
    if (d.manifest.name !== name || d.manifest.version !== version) {
      throw new InfraFault(`dataset ${digest.slice(0, 12)} is ${d.manifest.name} ${d.manifest.version}, the job names ${name} ${version}`);
    }
    return d;
  });
}

async function fetchDataset(redis: Redis, secret: QueueSecret, digest: string): Promise<Dataset> {
  const dir = datasetCacheDir(digest);
  if (!existsSync(join(dir, "dataset.json"))) {
    const gz = await getBlob(redis, digest, secret);
    if (gz === null) throw new InfraFault(`dataset ${digest.slice(0, 12)} is not in the queue (the coordinator uploads it again)`);
    const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
    try {
      unpackDataset(gz, digest, tmp);
      if (!existsSync(dir)) renameSync(tmp, dir);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return loadDataset(dir);
}
