import { sha256 } from "../core/digest.js";
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";

/** Build outputs and caches never shipped with a dataset (the same ones a local tree's commit leaves out). */
const skipped = new Set(["__pycache__", ".pytest_cache", ".benchmarks", ".venv", "node_modules", ".DS_Store"]);
const skippedSuffix = [".pyc", ".egg-info"];

interface Entry {
  path: string;
  kind: "file" | "link";
  mode: number;
  data: Buffer;
}

function walk(root: string, rel: string, out: Entry[]): void {
  const dir = join(root, rel);
  for (const name of readdirSync(dir).sort()) {
    if (skipped.has(name) || skippedSuffix.some((s) => name.endsWith(s))) continue;
    const r = rel === "" ? name : `${rel}/${name}`;
    const st = lstatSync(join(root, r));
    if (st.isDirectory()) walk(root, r, out);
    else if (st.isSymbolicLink()) out.push({ path: r, kind: "link", mode: 0, data: Buffer.from(readlinkSync(join(root, r))) });
    else if (st.isFile()) out.push({ path: r, kind: "file", mode: st.mode & 0o111 ? 0o755 : 0o644, data: readFileSync(join(root, r)) });
  }
}

export interface DatasetPack {
  /** sha256 of the uncompressed pack: the same files give the same digest on every machine. */
  digest: string;
  /** gzip of the pack, as it travels. */
  gz: Buffer;
  files: number;
}

/**
 * A dataset directory as one deterministic byte string: files in path order, each a JSON header line
 * (path, kind, mode, size) followed by its bytes; no times, owners or caches.
 */
function packBytes(root: string): { raw: Buffer; files: number } {
  const entries: Entry[] = [];
  walk(root, "", entries);
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(Buffer.from(`${JSON.stringify({ p: e.path, k: e.kind, m: e.mode, n: e.data.length })}\n`), e.data);
  }
  return { raw: Buffer.concat(parts), files: entries.length };
}

/** Packs a dataset directory (see packBytes) for the queue, with its digest and number of files. */
export function packDataset(root: string): DatasetPack {
  const { raw, files } = packBytes(root);
  return { digest: sha256(raw), gz: gzipSync(raw), files };
}

/**
 * The dataset digest: sha256 of the pack, the same number a queue job names the dataset by. run.json
 * records it, and reports refuse to mix runs whose digests differ.
 */
export function datasetDigest(root: string): string {
  return sha256(packBytes(root).raw);
}

function safeRelative(p: string): boolean {
  const n = posix.normalize(p);
  return n === p && !p.startsWith("/") && !p.startsWith("../") && p !== ".." && p !== "" && !p.includes("\0");
}

/**
 * Unpacks into `dest` (which must not exist yet) after checking the digest; a path that would leave
 * `dest` is refused. Returns the number of files.
 */
export function unpackDataset(gz: Buffer, expectedDigest: string, dest: string): number {
  const raw = gunzipSync(gz);
  const digest = sha256(raw);
  if (digest !== expectedDigest)
    throw new Error(`dataset pack digest ${digest.slice(0, 12)} differs from the job's ${expectedDigest.slice(0, 12)}`);
  mkdirSync(dest, { recursive: true });
  let at = 0;
  let files = 0;
  while (at < raw.length) {
    const nl = raw.indexOf(10, at);
    if (nl < 0) throw new Error("dataset pack: header without end");
    const h = JSON.parse(raw.subarray(at, nl).toString("utf8")) as { p: string; k: string; m: number; n: number };
    const data = raw.subarray(nl + 1, nl + 1 + h.n);
    at = nl + 1 + h.n;
    if (!safeRelative(h.p)) throw new Error(`dataset pack: unsafe path ${JSON.stringify(h.p)}`);
    const file = join(dest, h.p);
    mkdirSync(dirname(file), { recursive: true });
    if (h.k === "link") symlinkSync(data.toString("utf8"), file);
    else writeFileSync(file, data, { mode: h.m === 0o755 ? 0o755 : 0o644 });
    files++;
  }
  return files;
}
