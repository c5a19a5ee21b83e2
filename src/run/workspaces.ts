import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { cp, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { cachedDir } from "../core/cached-dir.js";
import { git } from "../core/git.js";
import { runProcess } from "../core/process.js";
import { taskById, type Dataset } from "../dataset/load.js";
import { baseNotFoundHint, cacheRoot, materializeRepo, resolveBase } from "../dataset/repo-cache.js";
import { InfraFault } from "../core/infra-fault.js";
import { workspaceNames, type SessionPair, type WorkspaceName } from "../formats/sessions.js";
import type { EvidenceLayers } from "./workspace-evidence.js";
import { overlayWorkspace, unmountUnder, workspaceMode, type WorkspaceMode } from "./overlay-workspaces.js";

/** The branch each workspace is on; it starts at the task's base revision. */
export const workspaceBranch = "main";

export interface SessionWorkspaces {
  /** Absolute path per workspace. */
  paths: Record<WorkspaceName, string>;
  /** Copy-on-write overlays of shared base checkouts, or copies (and why). */
  mode: WorkspaceMode;
  /** Per copy-on-write workspace: its layers and its base's evidence (empty for copies). */
  layers: Partial<Record<WorkspaceName, EvidenceLayers>>;
  /** Base commit per workspace (the revision its artifact is diffed against). */
  baseCommits: Record<WorkspaceName, string>;
  /** The harness-owned object store (the repository cache) each workspace's patch is collected with. */
  objectStores: Record<WorkspaceName, string>;
}

/**
 * Checks out the five workspaces of a session under `workDir`, each at its task's base revision.
 * Each workspace's git holds the base commit and its history, nothing later: the objects are
 * fetched from the repository cache (no alternates into it, whose refs include future fixes).
 * Any failure is an InfraFault: the session attempt is restarted from clean workspaces. A stopped
 * run (`signal`) kills the checkouts under way: five checkouts of a large repository take a minute,
 * longer than a scheduler waits between SIGTERM and SIGKILL.
 */
/** `owner`: the host uid the agent writes its workspaces as (a sandbox's unprivileged user, sandbox-user.ts); absent: the caller. */
export async function createWorkspaces(
  dataset: Dataset,
  pair: SessionPair,
  workDir: string,
  signal?: AbortSignal,
  opts: { keep?: boolean; owner?: number | null } = {},
): Promise<SessionWorkspaces> {
  makeWorkDir(workDir);
  const mode = await workspaceMode(stagingRoot(), opts.keep === true);
  const layers: Partial<Record<WorkspaceName, EvidenceLayers>> = {};
  const tasks = taskById(dataset);
  const made = await Promise.all(
    workspaceNames.map(async (w) => {
      const taskId = pair.workspaces[w];
      const task = taskId === undefined ? undefined : tasks.get(taskId);
      if (!task) throw new InfraFault(`workspace ${w}: no task`);
      const dest = join(workDir, w);
      try {
        const repo = await materializeRepo(dataset, task.repo);
        const commit = await resolveBase(repo, task.base);
        if (commit === null)
          throw new Error(`base ${task.base} of task ${task.id} not found in repository ${task.repo}${baseNotFoundHint(repo)}`);
        if (mode.kind === "overlay")
          layers[w] = await overlayWorkspace(
            repo.gitDir,
            commit,
            workDir,
            w,
            (tree) => isolatedCheckoutAt(repo.gitDir, commit, tree, signal),
            opts.owner ?? null,
          );
        else await isolatedCheckoutAt(repo.gitDir, commit, dest, signal);
        return [w, dest, commit, join(repo.gitDir, "objects")] as const;
      } catch (e) {
        throw new InfraFault(`checkout of ${w} (${task.id}) failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }),
  );
  const paths = {} as Record<WorkspaceName, string>;
  const baseCommits = {} as Record<WorkspaceName, string>;
  const objectStores = {} as Record<WorkspaceName, string>;
  for (const [w, dest, commit, objects] of made) {
    paths[w] = dest;
    baseCommits[w] = commit;
    objectStores[w] = objects;
  }
  return { paths, mode, layers, baseCommits, objectStores };
}

/**
 * A standalone repository at `dest` on a lone `main` branch at `commit`, holding only what that
 * commit reaches: no remote, no other refs, no alternates, so `git log --all`, `git fetch` or the
 * object store cannot lead an agent to later revisions (future fixes). Its `.git` is a copy (never a
 * link: an agent may write to it) of a skeleton made once per mirror and commit, so a workspace costs
 * one git process (the checkout), not a fetch each. The copy is asynchronous: a skeleton holds the
 * history up to the commit (200 MB for sympy), and copying five of them synchronously would hold
 * the event loop (other sessions' agents, timeouts, a SIGTERM) for seconds to minutes.
 */
export async function isolatedCheckoutAt(mirror: string, commit: string, dest: string, signal?: AbortSignal): Promise<void> {
  const skeleton = await isolatedSkeleton(mirror, commit);
  signal?.throwIfAborted();
  mkdirSync(dest, { recursive: true });
  await cp(skeleton, join(dest, ".git"), { recursive: true });
  signal?.throwIfAborted();
  await git(["-C", dest, "-c", "checkout.workers=8", "reset", "-q", "--hard", workspaceBranch], signal ? { signal } : {});
}

/** The `.git` of a fresh repository whose `main` is `commit`, with only the objects it reaches (cached). */
async function isolatedSkeleton(mirror: string, commit: string): Promise<string> {
  const dir = join(mirror, "switch-swe-isolated", commit);
  await cachedDir(dir, "HEAD", (tmp) => fillSkeleton(mirror, commit, tmp), ".git");
  return dir;
}

async function fillSkeleton(mirror: string, commit: string, tmp: string): Promise<void> {
  await git(["init", "-q", "--template=", "-b", workspaceBranch, tmp]);
  const uploadPack = "git -c uploadpack.allowAnySHA1InWant=true upload-pack";
  // Kept as one pack (git unpacks fetches of under 100 objects): a small repository's history would
  // otherwise be hundreds of loose files that every workspace copies one by one.
  await git([
    "-C",
    tmp,
    "-c",
    "fetch.unpackLimit=1",
    "fetch",
    "-q",
    "--no-tags",
    "--no-write-fetch-head",
    `--upload-pack=${uploadPack}`,
    mirror,
    commit,
  ]);
  await git(["-C", tmp, "update-ref", `refs/heads/${workspaceBranch}`, commit]);
}

/** A git config text without the sections whose header matches. */
export function withoutSections(config: string, header: RegExp): string {
  let skip = false;
  return config
    .split("\n")
    .filter((line) => {
      const t = line.trim();
      if (t.startsWith("[")) skip = header.test(t);
      return !skip;
    })
    .join("\n");
}

/** Where attempts' work directories really are: a neutral place outside any run directory. */
export const stagingRoot = () => join(cacheRoot(), "work");

/**
 * Makes an attempt's work directory: RUN_DIR/work/<id> is a link to a new directory of a random
 * name under the cache (`work/w-XXXXXX`). A sandbox's mount table (/proc/self/mountinfo) shows the
 * real path of every bind's source, so a workspace inside the run directory would show the agent
 * the run directory's path and name.
 */
function makeWorkDir(workDir: string): void {
  if (existsSync(workDir)) throw new InfraFault(`workspace directory ${workDir} already exists`);
  if (isLink(workDir)) rmSync(workDir, { force: true }); // a link whose directory is gone (a cleared cache)
  mkdirSync(stagingRoot(), { recursive: true });
  const real = mkdtempSync(join(stagingRoot(), "w-"));
  mkdirSync(dirname(workDir), { recursive: true });
  symlinkSync(real, workDir);
  // Written after the link, so that a directory with a back-link and no link to it is an orphan.
  writeFileSync(backLink(real), workDir);
}

/** Where the link to an attempt's directory is (the directory itself is never bound into a sandbox). */
const backLink = (real: string) => join(real, ".link");

/** Whether an attempt's directory is still reached from its run directory. */
function linked(real: string): boolean {
  try {
    if (!existsSync(backLink(real))) {
      // Being made right now (the back-link comes last), or its maker died in between: judged by age.
      return Date.now() - statSync(real).mtimeMs < 60 * 60_000;
    }
    const link = readFileSync(backLink(real), "utf8");
    return isLink(link) && resolve(dirname(link), readlinkSync(link)) === real;
  } catch {
    return true; // gone meanwhile, or unreadable: not ours to remove
  }
}

/**
 * Removes the attempts' directories under the cache whose run directory no longer links to them (a run
 * directory deleted while sessions ran, or after a kill -9 that no `--resume` followed). Returns them.
 */
export async function reapOrphanWorkDirs(): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(stagingRoot()).filter((n) => n.startsWith("w-"));
  } catch {
    return [];
  }
  const orphans = names.map((n) => join(stagingRoot(), n)).filter((d) => !linked(d));
  for (const d of orphans) await removeTree(d);
  return orphans;
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

async function removeTree(dir: string): Promise<void> {
  // Copy-on-write workspaces first (also those a killed run left mounted): never removed through the overlay.
  await unmountUnder(dir);
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    await runProcess("chmod", ["-R", "u+w", dir]);
    await rm(dir, { recursive: true, force: true });
  }
}

/** Removes a work directory (and the directory its link leads to), also when an agent left read-only files in it (asynchronously: it may hold gigabytes). */
export async function removeWorkDir(dir: string): Promise<void> {
  if (isLink(dir)) {
    const real = resolve(dirname(dir), readlinkSync(dir));
    // Only a directory this module made: a link changed to lead elsewhere is removed alone.
    if (dirname(real) === stagingRoot()) await removeTree(real);
    rmSync(dir, { force: true });
    return;
  }
  await removeTree(dir);
}
