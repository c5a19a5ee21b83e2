import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { gitOut, gitTry, git } from "../core/git.js";
import { runProcess } from "../core/process.js";
import { taskById, type Dataset } from "../dataset/load.js";
import { checkoutAt, materializeRepo, resolveBase } from "../dataset/repo-cache.js";
import { InfraFault } from "../agents/types.js";
import { workspaceNames, type SessionPair, type WorkspaceName } from "../sessions/schema.js";

/** The branch each workspace is on; it starts at the task's base revision. */
export const workspaceBranch = "main";

export interface SessionWorkspaces {
  /** Absolute path per workspace. */
  paths: Record<WorkspaceName, string>;
  /** Base commit per workspace (the revision its artifact is diffed against). */
  baseCommits: Record<WorkspaceName, string>;
}

/**
 * Checks out the five workspaces of a session under `workDir`, each at its task's base revision,
 * from the per-repository cache (shared objects: a file-tree write each, not a clone each).
 * Any failure is an InfraFault: the session attempt is restarted from clean workspaces.
 */
export async function createWorkspaces(dataset: Dataset, pair: SessionPair, workDir: string): Promise<SessionWorkspaces> {
  if (existsSync(workDir)) throw new InfraFault(`workspace directory ${workDir} already exists`);
  mkdirSync(workDir, { recursive: true });
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
        if (commit === null) throw new Error(`base ${task.base} of task ${task.id} not found in repository ${task.repo}`);
        await checkoutAt(repo, commit, dest);
        await isolateCheckout(dest);
        return [w, dest, commit] as const;
      } catch (e) {
        throw new InfraFault(`checkout of ${w} (${task.id}) failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }),
  );
  const paths = {} as Record<WorkspaceName, string>;
  const baseCommits = {} as Record<WorkspaceName, string>;
  for (const [w, dest, commit] of made) {
    paths[w] = dest;
    baseCommits[w] = commit;
  }
  return { paths, baseCommits };
}

/**
 * Leaves the checkout on a plain `main` branch at the base and removes every other ref and the
 * remote, so an agent cannot find later revisions of the repository (future fixes) with `git log --all`.
 */
async function isolateCheckout(dest: string): Promise<void> {
  await git(["-C", dest, "checkout", "-q", "-B", workspaceBranch]);
  const refs = (await gitOut(["-C", dest, "for-each-ref", "--format=%(refname)"])).split("\n").filter((r) => r && r !== `refs/heads/${workspaceBranch}`);
  if (refs.length > 0) await git(["-C", dest, "update-ref", "--no-deref", "--stdin"], { input: refs.map((r) => `delete ${r}\n`).join("") });
  await gitTry(["-C", dest, "config", "--remove-section", "remote.origin"]);
}

/** Removes a work directory, also when an agent left read-only files in it. */
export async function removeWorkDir(dir: string): Promise<void> {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    await runProcess("chmod", ["-R", "u+w", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
}
