import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitOut, gitTry, git } from "../core/git.js";
import { runProcess } from "../core/process.js";
import { taskById, type Dataset } from "../dataset/load.js";
import { checkoutAt, materializeRepo, resolveBase } from "../dataset/repo-cache.js";
import { InfraFault } from "../core/infra-fault.js";
import { workspaceNames, type SessionPair, type WorkspaceName } from "../formats/sessions.js";

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
        await isolateCheckout(dest, commit);
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
 * remote, so an agent cannot find later revisions of the repository (future fixes) with `git log --all`
 * or `git fetch`. Two git processes: the ref list, and one ref transaction; HEAD and the remote's config
 * section are plain files.
 */
async function isolateCheckout(dest: string, commit: string): Promise<void> {
  const gitDir = join(dest, ".git");
  const refs = (await gitOut(["-C", dest, "for-each-ref", "--format=%(refname)"])).split("\n").filter((r) => r && r !== `refs/heads/${workspaceBranch}`);
  const stdin = [`update refs/heads/${workspaceBranch} ${commit}`, ...refs.map((r) => `delete ${r}`)].map((l) => `${l}\n`).join("");
  await git(["-C", dest, "update-ref", "--no-deref", "--stdin"], { input: stdin });
  if (existsSync(join(gitDir, "HEAD")) && statSync(gitDir).isDirectory()) {
    writeFileSync(join(gitDir, "HEAD"), `ref: refs/heads/${workspaceBranch}\n`);
    const config = join(gitDir, "config");
    writeFileSync(config, withoutSections(readFileSync(config, "utf8"), /^\[(remote|branch) "/));
  } else {
    await git(["-C", dest, "symbolic-ref", "HEAD", `refs/heads/${workspaceBranch}`]);
    await gitTry(["-C", dest, "config", "--remove-section", "remote.origin"]);
  }
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

/** Removes a work directory, also when an agent left read-only files in it. */
export async function removeWorkDir(dir: string): Promise<void> {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    await runProcess("chmod", ["-R", "u+w", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
}
