import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, gitOut, gitTry } from "../core/git.js";
import type { FileChange } from "../formats/trajectory.js";
import { workspaceNames, type WorkspaceName } from "../formats/sessions.js";
import { InfraFault } from "../core/infra-fault.js";
import { artifactExcludes, isExcluded } from "./artifact.js";

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

/**
 * A fingerprint of a directory's files as the file system describes them (path, type, size, inode,
 * modification and change times in nanoseconds), `.git` left out. Equal fingerprints mean no file was
 * written, created, removed or renamed in between (the change time cannot be set back by a process),
 * so git need not read the workspace again.
 */
export function statFingerprint(dir: string): string {
  const h = createHash("sha1");
  const walk = (abs: string, rel: string): void => {
    let entries;
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch {
      h.update(`${rel}\0unreadable\n`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name === ".git") continue;
      const path = `${abs}/${e.name}`;
      const st = lstatSync(path, { bigint: true, throwIfNoEntry: false });
      if (!st) continue;
      h.update(`${rel}/${e.name}\0${st.mode}\0${st.size}\0${st.ino}\0${st.mtimeNs}\0${st.ctimeNs}\n`);
      if (e.isDirectory()) walk(path, `${rel}/${e.name}`);
    }
  };
  walk(dir, "");
  return h.digest("hex");
}

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
  /** The stat fingerprint at the last tree read, per workspace: unchanged means the same tree. */
  private readonly fingerprints = new Map<WorkspaceName, string>();

  private constructor(
    private readonly dir: string,
    private readonly paths: Readonly<Record<WorkspaceName, string>>,
  ) {}

  static async open(paths: Readonly<Record<WorkspaceName, string>>): Promise<WorkspaceEvidence> {
    const dir = mkdtempSync(join(tmpdir(), "switch-swe-evidence-"));
    try {
      await git(["init", "-q", "--bare", join(dir, "objects.git")]);
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw new InfraFault(`workspace evidence store: ${e instanceof Error ? e.message : String(e)}`);
    }
    return new WorkspaceEvidence(dir, paths);
  }

  private gitArgs(w: WorkspaceName): string[] {
    return [...harnessConfig, "--git-dir", join(this.dir, "objects.git"), "--work-tree", this.paths[w]];
  }

  /** Drops from the private index what the path dialect excludes and git's pathspecs let through, as the artifact does. */
  private async unstageExcluded(w: WorkspaceName, env: NodeJS.ProcessEnv): Promise<void> {
    const listed = (await git([...this.gitArgs(w), "ls-files", "-z"], { env, timeoutMs: deadlineMs })).stdout;
    const excluded = listed.split("\0").filter((p) => p !== "" && isExcluded(p));
    if (excluded.length === 0) return;
    await git([...this.gitArgs(w), "rm", "-q", "--cached", "--pathspec-from-file=-", "--pathspec-file-nul"], { env, input: `${excluded.join("\0")}\0`, timeoutMs: deadlineMs });
  }

  /** The tree of a workspace's files; `partial` names files that could not be read (left out). */
  private async treeOf(w: WorkspaceName): Promise<{ tree: string; partial?: string }> {
    if (!existsSync(this.paths[w])) throw new Error("the workspace does not exist");
    const env = { GIT_INDEX_FILE: join(this.dir, `${w}.index`) };
    const excludes = artifactExcludes.map((g) => `:(exclude,glob)${g}`);
    const add = await gitTry([...this.gitArgs(w), "add", "-A", "--ignore-errors", "--", ".", ...excludes], { env, timeoutMs: deadlineMs });
    if (add.timedOut) throw new Error(`reading the files took longer than ${deadlineMs / 1000} s`);
    await this.unstageExcluded(w, env);
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
          const fp = existsSync(this.paths[w]) ? statFingerprint(this.paths[w]) : null;
          const prevTree = this.last.get(w);
          if (fp !== null && prevTree !== undefined && this.fingerprints.get(w) === fp) {
            return { w, tree: prevTree as string | null, changed: [] as FileChange[], error: undefined };
          }
          const { tree, partial } = await this.treeOf(w);
          if (fp !== null && partial === undefined) this.fingerprints.set(w, fp);
          else this.fingerprints.delete(w);
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
