import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { git, gitOut, gitTry } from "../core/git.js";
import type { Dataset } from "./load.js";
import { resolveSource } from "./source-location.js";
import { sha256 } from "../core/digest.js";

/** Where repositories and environments are cached across runs. */
export function cacheRoot(): string {
  return resolve(process.env.SWITCH_SWE_CACHE ?? join(homedir(), ".cache", "switch-swe"));
}

function shortHash(text: string): string {
  return sha256(text).slice(0, 16);
}

/** Build outputs and caches that a plain source tree may contain but that are never part of it. */
const localTreeExcludes = [
  "__pycache__/",
  "*.pyc",
  ".pytest_cache/",
  ".benchmarks/",
  "*.egg-info/",
  ".venv/",
  "node_modules/",
  ".DS_Store",
];

export interface MaterializedRepo {
  /** Bare git repository in the cache that holds the base revisions. */
  gitDir: string;
  /** Commit that "HEAD" means for this repository; null when the source's HEAD does not resolve (tasks then pin commits). */
  head: string | null;
  /** Where a git repository was cloned from (a mirror, a bundle or the URL); absent for local trees. */
  source?: string;
}

/** A repository source that cannot be cloned or is not a usable repository; the message says how to fix it. */
export class RepoUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RepoUnavailable";
  }
}

const inFlight = new Map<string, Promise<MaterializedRepo>>();

/** Every field of a repository's source, resolved: the cache key of its clone. */
export function sourceKey(dataset: Dataset, name: string): string {
  const spec = dataset.manifest.repos[name];
  if (!spec) throw new Error(`unknown repository ${name}`);
  if ("path" in spec) return `local:${resolve(dataset.root, spec.path)}`;
  return `git:${JSON.stringify({ git: spec.git, mirror: spec.mirror === undefined ? null : resolveSource(dataset.root, spec.mirror) })}`;
}

/**
 * Makes a repository of the dataset available as a bare git repository in the cache.
 * A local tree becomes one commit with a fixed author, date and message, so the same tree always
 * yields the same commit id; a git source is cloned once as a mirror (from `mirror` when given)
 * and reused. Throws RepoUnavailable when the source cannot be cloned.
 */
export function materializeRepo(dataset: Dataset, name: string): Promise<MaterializedRepo> {
  const spec = dataset.manifest.repos[name];
  if (!spec) throw new Error(`unknown repository ${name}`);
  const key = sourceKey(dataset, name);
  let p = inFlight.get(key);
  if (!p) {
    p =
      "path" in spec
        ? materializeLocal(resolve(dataset.root, spec.path))
        : materializeGit(key, spec.mirror ? resolveSource(dataset.root, spec.mirror) : spec.git, name);
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

/** git's own explanation, without the temporary clone path it names. */
function gitReason(stderr: string, tmp: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.replaceAll(tmp, "<cache>").trim())
    .filter((l) => l !== "" && !l.startsWith("Cloning into"));
  return lines.find((l) => l.startsWith("fatal:")) ?? lines[0] ?? "git clone failed";
}

/** Clones `source` into the cache; a clone that fails or holds no commit is removed, never kept. */
async function materializeGit(key: string, source: string, name: string): Promise<MaterializedRepo> {
  const gitDir = join(cacheRoot(), "repos", `git-${shortHash(key)}.git`);
  if (!existsSync(join(gitDir, "HEAD"))) {
    const tmp = `${gitDir}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    mkdirSync(dirname(gitDir), { recursive: true });
    try {
      const r = await gitTry(["clone", "-q", "--mirror", source, tmp], { timeoutMs: 30 * 60_000 });
      if (r.code !== 0) {
        throw new RepoUnavailable(
          `cannot clone ${source}: ${gitReason(r.stderr, tmp)}; offline, point the repository at a local clone, mirror or bundle ` +
            `("mirror": PATH in dataset.json's repos.${name}, or --repo when importing or materializing)`,
        );
      }
      const refs = await gitTry(["--git-dir", tmp, "for-each-ref", "--count=1", "--format=%(objectname)"]);
      if (refs.code !== 0 || refs.stdout.trim() === "")
        throw new RepoUnavailable(`${source} is not a usable repository: it has no branch or tag`);
      // Rename makes the clone appear whole or not at all.
      try {
        renameSync(tmp, gitDir);
      } catch {
        // another process finished the same clone first
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const head = await gitTry(["--git-dir", gitDir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  return { gitDir, head: head.code === 0 ? head.stdout.trim() : null, source };
}

async function revParse(gitDir: string, rev: string): Promise<string | null> {
  const r = await gitTry(["--git-dir", gitDir, "rev-parse", "--verify", "--quiet", `${rev}^{commit}`]);
  return r.code === 0 ? r.stdout.trim() : null;
}

/**
 * Resolves a task's base ("HEAD", a tag, a branch or a commit) to a commit id, or null. A git
 * clone that lacks it is fetched again from its source once (the source may have gained it).
 */
export async function resolveBase(repo: MaterializedRepo, base: string): Promise<string | null> {
  if (base === "HEAD") return repo.head;
  const found = await revParse(repo.gitDir, base);
  if (found !== null || repo.source === undefined) return found;
  const fetched = await gitTry(["--git-dir", repo.gitDir, "fetch", "-q", "--prune", repo.source, "+refs/*:refs/*"], {
    timeoutMs: 10 * 60_000,
  });
  return fetched.code === 0 ? revParse(repo.gitDir, base) : null;
}

/** What to say when a base is not found: for a cached clone, how to refresh it. */
export function baseNotFoundHint(repo: MaterializedRepo): string {
  if (repo.source === undefined) return "";
  return ` (cached clone of ${repo.source} at ${repo.gitDir}; \`switch-swe cache clear --repos\` clones it again)`;
}

/**
 * A standalone checkout of `commit` at `dest` that holds that commit's tree and nothing else: its
 * objects are fetched at depth 1 from the cache (no history, no alternates into the cache, whose refs
 * include later commits, no remote, no refs but a detached HEAD). For the verifier and environment
 * set-ups, whose code under test must not reach a later revision (the fix), sandboxed or not.
 */
export async function baseOnlyCheckoutAt(repo: MaterializedRepo, commit: string, dest: string): Promise<void> {
  if (existsSync(dest)) throw new Error(`${dest} already exists`);
  await git(["init", "-q", "--template=", dest]);
  const uploadPack = "git -c uploadpack.allowAnySHA1InWant=true upload-pack";
  await git([
    "-C",
    dest,
    "fetch",
    "-q",
    "--depth",
    "1",
    "--no-tags",
    "--no-write-fetch-head",
    `--upload-pack=${uploadPack}`,
    repo.gitDir,
    commit,
  ]);
  await git(["-C", dest, "-c", "checkout.workers=8", "checkout", "-q", "--detach", commit]);
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
