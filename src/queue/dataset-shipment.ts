import type { Redis } from "ioredis";
import type { Dataset } from "../dataset/load.js";
import { putBlob } from "./blob-store.js";
import { packDataset } from "../dataset/pack.js";
import { bundleExternalRepos } from "./repo-bundles.js";
import type { QueueSecret } from "./queue-secret.js";

/**
 * What travels to the workers for a dataset, content-addressed: the packed dataset directory, and a git
 * bundle of each repository that lives outside it (the revisions its tasks need). Jobs name the digests.
 */
export interface Shipment {
  /** Digest of the dataset pack. */
  digest: string;
  /** Repository name -> digest of its bundle (only repositories outside the dataset directory). */
  repos: Record<string, string>;
  blobs: Array<{ digest: string; bytes: Buffer }>;
}

export async function prepareShipment(dataset: Dataset): Promise<Shipment> {
  const pack = packDataset(dataset.root);
  const bundles = await bundleExternalRepos(dataset);
  return {
    digest: pack.digest,
    repos: Object.fromEntries(bundles.map((b) => [b.repo, b.digest])),
    blobs: [{ digest: pack.digest, bytes: pack.gz }, ...bundles.map((b) => ({ digest: b.digest, bytes: b.bytes }))],
  };
}

/** Stores every blob of the shipment that Redis does not hold yet (once per digest, whoever ships it). */
export async function ship(redis: Redis, s: Shipment, secret: QueueSecret): Promise<void> {
  for (const b of s.blobs) await putBlob(redis, b.digest, b.bytes, secret);
}

/** The dataset as a job names it. */
export function jobDataset(
  dataset: Dataset,
  s: Shipment,
): { name: string; version: string; digest: string; repos?: Record<string, string> } {
  const base = { name: dataset.manifest.name, version: dataset.manifest.version, digest: s.digest };
  return Object.keys(s.repos).length > 0 ? { ...base, repos: s.repos } : base;
}
