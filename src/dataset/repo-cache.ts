import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { git, gitOut, gitTry } from "../core/git.js";
import type { Dataset } from "./load.js";
import { sha256 } from "../core/digest.js";

/** Where repositories and environments are cached across runs. */
export function cacheRoot(): string {
  return resolve(process.env.SWITCH_SWE_CACHE ?? join(homedir(), ".cache", "switch-swe"));
}

function shortHash(text: string): string {
  return sha256(text).slice(0, 16);
}

/** Build outputs and caches that a plain source tree may contain but that are never part of it. */
const localTreeExcludes = ["__pycache__/", "*.pyc", ".pytest_cache/", ".benchmarks/", "*.egg-info/", ".venv/", "node_modules/", ".DS_Store"];

export interface MaterializedRepo {
  /** Bare git repository in the cache that holds the base revisions. */
  gitDir: string;
  /** Commit that "HEAD" means for this repository. */
  head: string;
}

const inFlight = new Map<string, Promise<MaterializedRepo>>();

/**
 * Makes a repository of the dataset available as a bare git repository in the cache.
 * A local tree becomes one commit with a fixed author, date and message, so the same tree always
 * yields the same commit id; a git source is cloned once as a mirror and reused.
 */
export function materializeRepo(dataset: Dataset, name: string): Promise<MaterializedRepo> {
  const spec = dataset.manifest.repos[name];
  if (!spec) throw new Error(`unknown repository ${name}`);
  const key = "path" in spec ? `local:${resolve(dataset.root, spec.path)}` : `git:${spec.git}`;
  let p = inFlight.get(key);
  if (!p) {
    p = "path" in spec ? materializeLocal(resolve(dataset.root, spec.path)) : materializeGit(spec.git, spec.mirror ? resolve(dataset.root, spec.mirror) : undefined);
    inFlight.set(key, p);
    p.catch(() => inFlight.delete(key));
  }
  return p;
}

async function ensureBare(gitDir: string): Promise<void> {
  if (existsSync(join(gitDir, "HEAD"))) return;
  mkdirSync(gitDir, { recursive: true });
  await git(["init", "-q", "--bare", gitDir]);
}

async function materializeLocal(tree: string): Promise<MaterializedRepo> {
  const gitDir = join(cacheRoot(), "repos", `local-${shortHash(tree)}.git`);
  await ensureBare(gitDir);
  // A private index per call: concurrent processes may share the cache, git objects are safe to share.
  const index = join(tmpdir(), `switch-swe-index-${process.pid}-${shortHash(tree + Math.random())}`);
  const excludes = join(gitDir, "info", "exclude");
  mkdirSync(join(gitDir, "info"), { recursive: true });
  writeFileSync(excludes, `${localTreeExcludes.join("\n")}\n`);
  try {
    const env = { GIT_INDEX_FILE: index, GIT_DIR: gitDir, GIT_WORK_TREE: tree };
    await git(["add", "-A", "."], { cwd: tree, env });
    const treeId = await gitOut(["write-tree"], { cwd: tree, env });
    const commit = await gitOut(["commit-tree", treeId, "-m", "switch-swe base"], { cwd: tree, env: { GIT_DIR: gitDir } });
    await git(["--git-dir", gitDir, "update-ref", `refs/switch-swe/${commit}`, commit]);
    return { gitDir, head: commit };
  } finally {
    rmSync(index, { force: true });
  }
}

async function materializeGit(url: string, mirror: string | undefined): Promise<MaterializedRepo> {
  const gitDir = join(cacheRoot(), "repos", `git-${shortHash(url)}.git`);
  if (!existsSync(join(gitDir, "HEAD"))) {
    const tmp = `${gitDir}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    await git(["clone", "-q", "--mirror", mirror ?? url, tmp], { timeoutMs: 30 * 60_000 });
    // Rename makes the clone appear whole or not at all.
    const { renameSync } = await import("node:fs");
    try {
      renameSync(tmp, gitDir);
    } catch {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const head = await gitOut(["--git-dir", gitDir, "rev-parse", "HEAD^{commit}"]);
  return { gitDir, head };
}

/** Resolves a task's base ("HEAD", a tag, a branch or a commit) to a commit id, or null. */
export async function resolveBase(repo: MaterializedRepo, base: string): Promise<string | null> {
  if (base === "HEAD") return repo.head;
  const r = await gitTry(["--git-dir", repo.gitDir, "rev-parse", "--verify", "--quiet", `${base}^{commit}`]);
  return r.code === 0 ? r.stdout.trim() : null;
}

/**
 * A working checkout of `commit` at `dest` that borrows the cache's objects (git alternates),
 * so five checkouts of a large repository cost a file-tree write each, not a clone each.
 */
export async function checkoutAt(repo: MaterializedRepo, commit: string, dest: string): Promise<void> {
  if (existsSync(dest)) throw new Error(`${dest} already exists`);
  await git(["clone", "-q", "--shared", "--no-checkout", repo.gitDir, dest]);
  // Parallel checkout: writing 20,000 files is I/O-bound, and workers overlap the waits.
  await git(["-C", dest, "-c", "checkout.workers=8", "checkout", "-q", "--detach", commit]);
}
