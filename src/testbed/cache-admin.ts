import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { cacheRoot } from "../dataset/repo-cache.js";
import { removeEnvironment, sealFileOf } from "./env-seal.js";
import { envsRoot } from "./env-cache.js";
import { listScratch, type ScratchDir } from "./verifier-scratch.js";

export interface EnvInfo {
  key: string;
  dir: string;
  ready: boolean;
  /** A set-up holds the lock right now (or a crashed one left it). */
  locked: boolean;
  repo?: string;
  commit?: string;
  setup?: string[];
  created_at?: string;
  setup_ms?: number;
  bytes: number;
}

export interface CacheInfo {
  root: string;
  repos: { count: number; bytes: number };
  envs: EnvInfo[];
  /** The verifier's scratch directories (checkouts being verified; stale ones a dead verifier left). */
  scratch: ScratchDir[];
}

/** Bytes under a directory (symbolic links count as themselves, never followed). */
export function diskUsage(p: string): number {
  let st;
  try {
    st = lstatSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const name of readdirSync(p)) total += diskUsage(join(p, name));
  return total;
}

export function cacheInfo(): CacheInfo {
  const root = cacheRoot();
  const reposDir = join(root, "repos");
  const repos = existsSync(reposDir) ? readdirSync(reposDir).filter((n) => n.endsWith(".git")) : [];
  const envs: EnvInfo[] = [];
  const er = envsRoot();
  if (existsSync(er)) {
    for (const key of readdirSync(er).sort()) {
      const dir = join(er, key);
      if (key.endsWith(".lock") || !statSync(dir).isDirectory()) continue;
      let meta: Partial<EnvInfo> = {};
      try {
        meta = JSON.parse(readFileSync(join(dir, "env.json"), "utf8")) as Partial<EnvInfo>;
      } catch {
        // a set-up in progress or a failed one
      }
      envs.push({
        key,
        dir,
        ready: existsSync(join(dir, "ready")) && existsSync(sealFileOf(dir)),
        locked: existsSync(join(er, `${key}.lock`)),
        ...(meta.repo !== undefined ? { repo: meta.repo } : {}),
        ...(meta.commit !== undefined ? { commit: meta.commit } : {}),
        ...(meta.setup !== undefined ? { setup: meta.setup } : {}),
        ...(meta.created_at !== undefined ? { created_at: meta.created_at } : {}),
        ...(meta.setup_ms !== undefined ? { setup_ms: meta.setup_ms } : {}),
        bytes: diskUsage(dir),
      });
    }
  }
  return { root, repos: { count: repos.length, bytes: diskUsage(reposDir) }, envs, scratch: listScratch(diskUsage) };
}

export interface ClearResult {
  removed: string[];
  /** Environments left alone because a set-up holds their lock. */
  skipped: string[];
}

/** Removes cached environments and/or repositories. An environment being set up right now is left alone. */
export function clearCache(what: { envs: boolean; repos: boolean }): ClearResult {
  const out: ClearResult = { removed: [], skipped: [] };
  if (what.envs) {
    const er = envsRoot();
    if (existsSync(er)) {
      for (const name of readdirSync(er)) {
        if (name.endsWith(".lock") || name.endsWith(".seal.json")) continue;
        const dir = join(er, name);
        if (existsSync(join(er, `${name}.lock`))) {
          out.skipped.push(dir);
          continue;
        }
        removeEnvironment(dir);
        out.removed.push(dir);
      }
    }
  }
  if (what.repos) {
    const rr = join(cacheRoot(), "repos");
    if (existsSync(rr)) {
      rmSync(rr, { recursive: true, force: true });
      out.removed.push(rr);
    }
  }
  return out;
}
