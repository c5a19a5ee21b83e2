import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, isAbsolute } from "node:path";
import type { Redis } from "ioredis";
import { sha256 } from "../core/digest.js";
import { git, gitOut, gitTry } from "../core/git.js";
import { InfraFault } from "../core/infra-fault.js";
import { writeFileAtomic } from "../core/json-file.js";
import type { Dataset } from "../dataset/load.js";
import { cacheRoot, materializeRepo, resolveBase } from "../dataset/repo-cache.js";
import { isRemoteSource } from "../dataset/source-location.js";
import { getBlob } from "./blob-store.js";
import type { QueueSecret } from "./queue-secret.js";

/** A git bundle of what a dataset's tasks need of one repository, as it travels (content-addressed). */
export interface RepoBundle {
  repo: string;
  digest: string;
  bytes: Buffer;
}

function inside(root: string, path: string): boolean {
  const r = relative(root, path);
  return r === "" || (!r.startsWith("..") && !isAbsolute(r));
}

/**
 * The repositories that live outside the dataset directory on this machine: a local tree (`path`), or a
 * git source (`mirror`, else `git`) that is a local path or bundle. The dataset pack does not carry them,
 * and a worker on another machine cannot reach them. (A remote URL is cloned by each worker itself.)
 */
export function externalRepos(dataset: Dataset): string[] {
  return Object.entries(dataset.manifest.repos)
    .filter(([, spec]) => {
      const source = "path" in spec ? spec.path : (spec.mirror ?? spec.git);
      return !isRemoteSource(source) && !inside(dataset.root, resolve(dataset.root, source));
    })
    .map(([name]) => name)
    .sort();
}

/** Every revision the dataset names in one repository: task bases and environment set-up commits. */
function revisionsOf(dataset: Dataset, repo: string): string[] {
  const revs = new Set<string>(["HEAD"]);
  for (const t of dataset.tasks) if (t.repo === repo) revs.add(t.base);
  const env = dataset.manifest.repos[repo]?.environment;
  for (const v of Object.values(env?.variants ?? {})) if (v.setup_commit) revs.add(v.setup_commit);
  return [...revs].sort();
}

/**
 * A git bundle of the revisions the tasks name in one repository (with their history, nothing later):
 * HEAD, each named ref as it is named, each commit under a keep ref. Single-threaded packing, so the same
 * revisions give the same bytes (and digest) on every call.
 */
async function bundleRepo(dataset: Dataset, repo: string, tmp: string, revisions = revisionsOf(dataset, repo)): Promise<RepoBundle> {
  if ("path" in dataset.manifest.repos[repo]!) return bundleTree(dataset, repo, tmp);
  const m = await materializeRepo(dataset, repo);
  const refs = new Set<string>();
  for (const rev of revisions) {
    const commit = await resolveBase(m, rev);
    if (commit === null) continue;
    // Every revision also under a keep ref: a bundle (and its clone) needs a ref besides a detached HEAD.
    if (rev === "HEAD") refs.add("HEAD");
    const full = (await gitTry(["--git-dir", m.gitDir, "rev-parse", "--symbolic-full-name", rev])).stdout.trim();
    if (full.startsWith("refs/")) refs.add(full);
    await git(["--git-dir", m.gitDir, "update-ref", `refs/switch-swe/keep/${commit}`, commit]);
    refs.add(`refs/switch-swe/keep/${commit}`);
  }
  if (m.head === null) refs.delete("HEAD");
  const file = join(tmp, `${repo}.bundle`);
  await git(["--git-dir", m.gitDir, "-c", "pack.threads=1", "bundle", "create", "-q", file, ...[...refs].sort()], {
    timeoutMs: 30 * 60_000,
  });
  const bytes = readFileSync(file);
  return { repo, digest: sha256(bytes), bytes };
}

/**
 * A local tree as a bundle: the one commit the harness makes of it (fixed author, date and message, so
 * the worker's checkouts have the very commit a local run would), as the bundle's HEAD and `main`.
 */
async function bundleTree(dataset: Dataset, repo: string, tmp: string): Promise<RepoBundle> {
  const m = await materializeRepo(dataset, repo);
  const bare = join(tmp, `${repo}.git`);
  await git(["init", "-q", "--bare", "-b", "main", bare]);
  await git(["--git-dir", bare, "fetch", "-q", "--no-tags", m.gitDir, `${m.head}:refs/heads/main`]);
  const file = join(tmp, `${repo}.bundle`);
  await git(["--git-dir", bare, "-c", "pack.threads=1", "bundle", "create", "-q", file, "HEAD", "refs/heads/main"], {
    timeoutMs: 30 * 60_000,
  });
  const bytes = readFileSync(file);
  return { repo, digest: sha256(bytes), bytes };
}

/** The bundles a queue run ships besides the dataset pack (none when every repository is inside it). */
export async function bundleExternalRepos(dataset: Dataset): Promise<RepoBundle[]> {
  const names = externalRepos(dataset);
  if (names.length === 0) return [];
  const tmp = mkdtempSync(join(tmpdir(), "switch-swe-bundle-"));
  try {
    const out: RepoBundle[] = [];
    for (const name of names) out.push(await bundleRepo(dataset, name, tmp));
    return out;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * A bundle of one git repository of the dataset at these revisions (with their history): what
 * `tasks mine --queue` ships, the history its candidates come from.
 */
export async function bundleRevisions(dataset: Dataset, repo: string, revisions: string[]): Promise<RepoBundle> {
  const tmp = mkdtempSync(join(tmpdir(), "switch-swe-bundle-"));
  try {
    return await bundleRepo(dataset, repo, tmp, [...new Set(revisions)].sort());
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Where a worker keeps a received bundle (checked against its digest once, then reused). */
async function cachedBundle(redis: Redis, secret: QueueSecret, digest: string): Promise<string> {
  const dir = join(cacheRoot(), "queue", "bundles");
  const file = join(dir, `${digest}.bundle`);
  if (existsSync(file)) return file;
  const bytes = await getBlob(redis, digest, secret);
  if (bytes === null)
    throw new InfraFault(`repository bundle ${digest.slice(0, 12)} is not in the queue (the coordinator uploads it again)`);
  if (sha256(bytes) !== digest) throw new InfraFault(`repository bundle ${digest.slice(0, 12)} arrived damaged (digest mismatch)`);
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(file, bytes);
  await gitOut(["bundle", "list-heads", file]);
  return file;
}

/**
 * The dataset as a worker runs it: each repository that travelled as a bundle is read from the cached
 * bundle (its `mirror`); everything else is as the coordinator's dataset says.
 */
export async function withBundles(
  redis: Redis,
  secret: QueueSecret,
  dataset: Dataset,
  bundles: Readonly<Record<string, string>>,
): Promise<Dataset> {
  const entries = Object.entries(bundles);
  if (entries.length === 0) return dataset;
  const repos = { ...dataset.manifest.repos };
  for (const [name, digest] of entries) {
    const spec = repos[name];
    if (!spec) throw new InfraFault(`the job ships a bundle of repository ${name}, which dataset ${dataset.manifest.name} does not have`);
    const file = await cachedBundle(redis, secret, digest);
    if ("path" in spec) {
      const { path: _tree, ...rest } = spec;
      repos[name] = { ...rest, git: file };
    } else repos[name] = { ...spec, mirror: file };
  }
  return { ...dataset, manifest: { ...dataset.manifest, repos } };
}
