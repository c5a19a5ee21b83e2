import { createHash } from "node:crypto";
import { createReadStream, readFileSync, statSync } from "node:fs";
import type { LoadedTask } from "../dataset/load.js";
import type { Verdict } from "../formats/verdict.js";
import { unappliedVerdict } from "./unapplied-verdict.js";

/** Default of `verify --max-artifact-mb`: far above any real patch, far below what one process can hold. */
export const defaultMaxArtifactMb = 256;

/** What is known of a session's artifact.patch before it is read: whether it exists, its size and hash. */
export type ArtifactInfo = { kind: "none" } | { kind: "file"; file: string; bytes: number; sha256: string; oversized: boolean };

/** Hashes the artifact as a stream (never held in memory whole) and compares its size with the limit. */
export async function inspectArtifact(file: string, maxBytes: number): Promise<ArtifactInfo> {
  let bytes: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) return { kind: "none" };
    bytes = st.size;
  } catch {
    return { kind: "none" };
  }
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return { kind: "file", file, bytes, sha256: hash.digest("hex"), oversized: bytes > maxBytes };
}

/** The artifact's text, read only when it is to be verified (and known to be within the limit). */
export function readArtifactText(info: ArtifactInfo): string | null {
  return info.kind === "none" ? null : readFileSync(info.file, "utf8");
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function oversizedReason(bytes: number, maxBytes: number): string {
  return `the artifact is ${megabytes(bytes)}, over the limit of ${megabytes(maxBytes)} (--max-artifact-mb); it was not read`;
}

/** The verdict of an artifact refused before any checkout (too large to verify). */
export function refusedVerdict(task: LoadedTask, session: string, sha256: string, reason: string, log: string): Verdict {
  return unappliedVerdict(task, { session, artifact_sha256: sha256, log }, reason, 0);
}
