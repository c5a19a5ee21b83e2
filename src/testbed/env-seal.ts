import { createHash } from "node:crypto";
import { chmodSync, existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, rmSync, type BigIntStats } from "node:fs";
import { join } from "node:path";
import { writeJsonAtomic } from "../core/json-file.js";
import { envSealSchema, type EnvSeal } from "../formats/env-seal.js";

/**
 * Sealed environments. After set-up an environment is made read-only and its digest recorded next to
 * it (`<key>.seal.json`, outside every sandbox). Before each use the cheap stat fingerprint is
 * compared with the seal, and on a difference the full digest: an environment whose files changed
 * (a test run that ran unsandboxed, or anyone with write access) is not used but rebuilt.
 */

export const sealFileOf = (envDir: string) => `${envDir}.seal.json`;

interface Entry {
  rel: string;
  abs: string;
  st: BigIntStats;
}

/** Every entry below `dir` in a fixed order (sorted by name at each level), without following symlinks. */
function walk(dir: string, visit: (e: Entry) => void, rel = ""): void {
  let names: string[];
  try {
    names = readdirSync(join(dir, rel));
  } catch {
    return;
  }
  for (const name of names.sort()) {
    const r = rel ? `${rel}/${name}` : name;
    const abs = join(dir, r);
    let st: BigIntStats;
    try {
      st = lstatSync(abs, { bigint: true });
    } catch {
      continue;
    }
    visit({ rel: r, abs, st });
    if (st.isDirectory()) walk(dir, visit, r);
  }
}

const kind = (st: BigIntStats) => (st.isDirectory() ? "d" : st.isSymbolicLink() ? "l" : st.isFile() ? "f" : "o");

/** The cheap fingerprint: what the file system says of each entry, nothing read. Any write or chmod changes a change time. */
export function statFingerprint(dir: string): string {
  const h = createHash("sha256");
  walk(dir, ({ rel, st }) => {
    h.update(`${kind(st)} ${JSON.stringify(rel)} ${st.mode} ${st.size} ${st.ino} ${st.mtimeNs} ${st.ctimeNs}\n`);
  });
  return h.digest("hex");
}

/** The full digest: path, type, permission bits, size, and the contents of files or the target of symlinks. */
export function contentDigest(dir: string): { digest: string; files: number; bytes: number } {
  const h = createHash("sha256");
  let files = 0;
  let bytes = 0;
  walk(dir, ({ rel, abs, st }) => {
    const k = kind(st);
    let body = "";
    if (k === "f") {
      body = createHash("sha256").update(readFileSync(abs)).digest("hex");
      files++;
      bytes += Number(st.size);
    } else if (k === "l") {
      body = JSON.stringify(readlinkSync(abs));
    }
    h.update(`${k} ${JSON.stringify(rel)} ${(st.mode & 0o7777n).toString(8)} ${k === "f" ? st.size : 0} ${body}\n`);
  });
  return { digest: h.digest("hex"), files, bytes };
}

/** Makes every file and directory of `dir` read-only (symlinks have no modes of their own). */
function makeReadOnly(dir: string): void {
  const entries: Entry[] = [];
  walk(dir, (e) => entries.push(e));
  // Files first, directories last and deepest first: each chmod is still allowed when it runs.
  for (const e of entries.filter((x) => !x.st.isDirectory() && !x.st.isSymbolicLink())) chmodSync(e.abs, Number(e.st.mode & 0o7555n));
  for (const e of entries.filter((x) => x.st.isDirectory()).reverse()) chmodSync(e.abs, Number(e.st.mode & 0o7555n));
  chmodSync(dir, lstatSync(dir).mode & 0o7555);
}

/** Seals a freshly set-up environment: read-only, then its digest and fingerprint written next to it. */
export function sealEnvironment(dir: string): EnvSeal {
  makeReadOnly(dir);
  const d = contentDigest(dir);
  const seal: EnvSeal = {
    format: "switch-swe.env-seal/1",
    digest: d.digest,
    stat: statFingerprint(dir),
    files: d.files,
    bytes: d.bytes,
    sealed_at: new Date().toISOString(),
  };
  writeJsonAtomic(sealFileOf(dir), seal);
  return seal;
}

function readSeal(dir: string): EnvSeal | null {
  try {
    const parsed = envSealSchema.safeParse(JSON.parse(readFileSync(sealFileOf(dir), "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export type SealCheck = { state: "intact"; stat: string } | { state: "unsealed" } | { state: "changed"; why: string };

/**
 * Whether `dir` is still what was sealed: the fingerprint first; when it differs, the full digest (a
 * touched but unchanged environment is intact again, and its new fingerprint is recorded).
 */
export function checkSeal(dir: string): SealCheck {
  const seal = readSeal(dir);
  if (!seal || !existsSync(dir)) return { state: "unsealed" };
  const stat = statFingerprint(dir);
  if (stat === seal.stat) return { state: "intact", stat };
  const d = contentDigest(dir);
  if (d.digest !== seal.digest)
    return {
      state: "changed",
      why: `its files differ from the seal (${d.files} files, ${d.bytes} bytes now; ${seal.files} files, ${seal.bytes} bytes sealed at ${seal.sealed_at})`,
    };
  writeJsonAtomic(sealFileOf(dir), { ...seal, stat });
  return { state: "intact", stat };
}

/** Removes an environment and its seal, also when its files are read-only and the caller is not root. */
export function removeEnvironment(dir: string): void {
  rmSync(sealFileOf(dir), { force: true });
  if (!existsSync(dir)) return;
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    walk(dir, ({ abs, st }) => {
      if (st.isDirectory()) chmodSync(abs, 0o755);
    });
    chmodSync(dir, 0o755);
    rmSync(dir, { recursive: true, force: true });
  }
}
