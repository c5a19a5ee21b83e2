import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, gitOut, gitTry } from "../core/git.js";
import type { FileChange } from "../formats/trajectory.js";
import { workspaceNames, type WorkspaceName } from "../sessions/schema.js";
import { artifactExcludes } from "./artifact.js";

/**
 * Settings that make git read a workspace as plain files: none of the workspace's own configuration
 * (its .git/config is never read: the git directory is the harness's own), no fsmonitor hook, no
 * line-ending conversion, no filter drivers (none are configured, so .gitattributes `filter=` is inert).
 */
const harnessConfig = [
  "-c", "core.fsmonitor=false",
  "-c", "core.hooksPath=/dev/null",
  "-c", "core.autocrlf=false",
  "-c", "core.safecrlf=false",
  "-c", "core.symlinks=true",
  "-c", "core.untrackedCache=false",
  "-c", "safe.directory=*",
  "-c", "gc.auto=0",
];

/** Deadline of each git command on a workspace (an agent may leave huge files behind). */
const deadlineMs = 120_000;

export interface WorkspaceSnapshot {
  trees: Record<WorkspaceName, { tree: string | null; error?: string }>;
  changed: Partial<Record<WorkspaceName, FileChange[]>>;
}

const nullBlob = /^0+$/;

/** `git diff-tree -r --raw -z` output → changes with blob ids (null for a missing side). */
export function parseRawDiff(out: string): FileChange[] {
  const parts = out.split("\0");
  const changes: FileChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i]!;
    const path = parts[i + 1]!;
    if (!meta.startsWith(":")) break;
    const [, , before, after] = meta.slice(1).split(" ");
    changes.push({ path, before: before && !nullBlob.test(before) ? before : null, after: after && !nullBlob.test(after) ? after : null });
  }
  return changes;
}

/**
 * Records the working state of the five workspaces of a session attempt: a tree id each (git add -A
 * into a private index, write-tree) and the files changed since the previous snapshot (diff-tree of the
 * two trees). Everything lives in a bare repository of the harness outside the workspaces; the
 * workspaces' own repositories, indexes, hooks and configuration are neither read nor touched.
 */
export class WorkspaceEvidence {
  private readonly last = new Map<WorkspaceName, string>();

  private constructor(
    private readonly dir: string,
    private readonly paths: Readonly<Record<WorkspaceName, string>>,
  ) {}

  static async open(paths: Readonly<Record<WorkspaceName, string>>): Promise<WorkspaceEvidence> {
    const dir = mkdtempSync(join(tmpdir(), "switch-swe-evidence-"));
    await git(["init", "-q", "--bare", join(dir, "objects.git")]);
    return new WorkspaceEvidence(dir, paths);
  }

  private gitArgs(w: WorkspaceName): string[] {
    return [...harnessConfig, "--git-dir", join(this.dir, "objects.git"), "--work-tree", this.paths[w]];
  }

  /** The tree of a workspace's files; `partial` names files that could not be read (left out). */
  private async treeOf(w: WorkspaceName): Promise<{ tree: string; partial?: string }> {
    if (!existsSync(this.paths[w])) throw new Error("the workspace does not exist");
    const env = { GIT_INDEX_FILE: join(this.dir, `${w}.index`) };
    const excludes = artifactExcludes.map((g) => `:(exclude,glob)${g}`);
    const add = await gitTry([...this.gitArgs(w), "add", "-A", "--ignore-errors", "--", ".", ...excludes], { env, timeoutMs: deadlineMs });
    if (add.timedOut) throw new Error(`reading the files took longer than ${deadlineMs / 1000} s`);
    const tree = await gitOut([...this.gitArgs(w), "write-tree"], { env, timeoutMs: deadlineMs });
    return add.code === 0 ? { tree } : { tree, partial: `some files could not be read: ${add.stderr.trim().split("\n")[0]?.slice(0, 200) ?? ""}` };
  }

  private async changes(from: string, to: string): Promise<FileChange[]> {
    if (from === to) return [];
    const out = (await git([...harnessConfig, "--git-dir", join(this.dir, "objects.git"), "diff-tree", "-r", "-z", "--raw", "--no-renames", "--abbrev=40", from, to], { timeoutMs: deadlineMs })).stdout;
    return parseRawDiff(out);
  }

  /** The state of every workspace now, and what changed since the previous snapshot (none for the first). */
  async snapshot(): Promise<WorkspaceSnapshot> {
    const out: WorkspaceSnapshot = { trees: {} as WorkspaceSnapshot["trees"], changed: {} };
    const results = await Promise.all(
      workspaceNames.map(async (w) => {
        try {
          const { tree, partial } = await this.treeOf(w);
          const prev = this.last.get(w);
          const changed = prev === undefined ? [] : await this.changes(prev, tree);
          this.last.set(w, tree);
          return { w, tree, changed, error: partial };
        } catch (e) {
          // A workspace the agent deleted or made unreadable: no tree this time; the next readable
          // state is compared with the last one that was read.
          return { w, tree: null as string | null, changed: [] as FileChange[], error: (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 300) };
        }
      }),
    );
    for (const r of results) {
      out.trees[r.w] = r.error === undefined ? { tree: r.tree } : { tree: r.tree, error: r.error };
      if (r.changed.length > 0) out.changed[r.w] = r.changed;
    }
    return out;
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
