import { createHash } from "node:crypto";
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, gitOut, gitTry } from "../core/git.js";
import type { FileChange } from "../formats/trajectory.js";
import { workspaceNames, type WorkspaceName } from "../formats/sessions.js";
import { InfraFault } from "../core/infra-fault.js";
import { artifactExcludes, isExcluded, stageChangedPaths } from "./artifact.js";
import { overlayChangedPaths, type WorkspaceLayers } from "./overlay-changes.js";

/**
 * Settings that make git read a workspace as plain files: none of the workspace's own configuration
 * (its .git/config is never read: the git directory is the harness's own), no fsmonitor hook, no
 * line-ending conversion, no filter drivers (none are configured, so .gitattributes `filter=` is inert).
 */
const harnessConfig = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.autocrlf=false",
  "-c",
  "core.safecrlf=false",
  "-c",
  "core.symlinks=true",
  "-c",
  "core.untrackedCache=false",
  "-c",
  "safe.directory=*",
  "-c",
  "gc.auto=0",
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

/** A copy-on-write workspace's layers and the evidence of its base. */
export interface EvidenceLayers extends WorkspaceLayers {
  base: EvidenceBase;
}

/** The evidence of a base checkout: a git directory holding its blobs, the private index of its files and their tree. */
export interface EvidenceBase {
  store: string;
  index: string;
  tree: string;
}

const evidenceGitArgs = (gitDir: string, workTree: string): string[] => [...harnessConfig, "--git-dir", gitDir, "--work-tree", workTree];

const partialText = (stderr: string): string => `some files could not be read: ${stderr.trim().split("\n")[0]?.slice(0, 200) ?? ""}`;

/** Drops from a private index what the path dialect excludes and git's pathspecs let through, as the artifact does. */
async function unstageExcluded(gitArgs: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  const listed = (await git([...gitArgs, "ls-files", "-z"], { env, timeoutMs: deadlineMs })).stdout;
  const excluded = listed.split("\0").filter((p) => p !== "" && isExcluded(p));
  if (excluded.length === 0) return;
  await git([...gitArgs, "rm", "-q", "--cached", "--pathspec-from-file=-", "--pathspec-file-nul"], {
    env,
    input: `${excluded.join("\0")}\0`,
    timeoutMs: deadlineMs,
  });
}

/** Every file of a work tree read into the index `env` names (git add -A), its tree written. */
async function readTree(gitArgs: readonly string[], env: NodeJS.ProcessEnv): Promise<{ tree: string; partial?: string }> {
  const excludes = artifactExcludes.map((g) => `:(exclude,glob)${g}`);
  const add = await gitTry([...gitArgs, "add", "-A", "--ignore-errors", "--", ".", ...excludes], { env, timeoutMs: deadlineMs });
  if (add.timedOut) throw new Error(`reading the files took longer than ${deadlineMs / 1000} s`);
  await unstageExcluded(gitArgs, env);
  const tree = await gitOut([...gitArgs, "write-tree"], { env, timeoutMs: deadlineMs });
  return add.code === 0 ? { tree } : { tree, partial: partialText(add.stderr) };
}

/**
 * The evidence of a base checkout, made in `dir` (a new bare git directory whose objects fall back on
 * `objectStore`, so only blobs the repository lacks are written): what a snapshot of a fresh workspace
 * at that base records, read once per base instead of once per workspace.
 */
export async function baseEvidence(checkout: string, dir: string, objectStore: string): Promise<EvidenceBase> {
  await git(["init", "-q", "--bare", "--template=", dir]);
  mkdirSync(join(dir, "objects", "info"), { recursive: true });
  writeFileSync(join(dir, "objects", "info", "alternates"), `${objectStore}\n`);
  const index = join(dir, "evidence.index");
  const { tree, partial } = await readTree(evidenceGitArgs(dir, checkout), { GIT_INDEX_FILE: index });
  if (partial !== undefined) throw new Error(`the base checkout ${checkout}: ${partial}`);
  return { store: dir, index, tree };
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

  /** Per copy-on-write workspace, every path its upper layer has named so far. */
  private readonly seen = new Map<WorkspaceName, Set<string>>();

  private constructor(
    private readonly dir: string,
    private readonly paths: Readonly<Record<WorkspaceName, string>>,
    private readonly layers: Partial<Record<WorkspaceName, EvidenceLayers>>,
  ) {}

  /**
   * A new evidence store for the five workspaces. A copy-on-write workspace (`layers`) starts from its
   * base's evidence (index and tree, made once per base revision) and is read through its upper layer.
   */
  static async open(
    paths: Readonly<Record<WorkspaceName, string>>,
    layers: Partial<Record<WorkspaceName, EvidenceLayers>> = {},
  ): Promise<WorkspaceEvidence> {
    const dir = mkdtempSync(join(tmpdir(), "switch-swe-evidence-"));
    try {
      await git(["init", "-q", "--bare", join(dir, "objects.git")]);
      const stores = [...new Set(Object.values(layers).map((l) => join(l.base.store, "objects")))];
      if (stores.length > 0) writeFileSync(join(dir, "objects.git", "objects", "info", "alternates"), `${stores.join("\n")}\n`);
      for (const [w, l] of Object.entries(layers)) copyFileSync(l.base.index, join(dir, `${w}.index`));
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      throw new InfraFault(`workspace evidence store: ${e instanceof Error ? e.message : String(e)}`);
    }
    return new WorkspaceEvidence(dir, paths, layers);
  }

  private indexOf(w: WorkspaceName): string {
    return join(this.dir, `${w}.index`);
  }

  private gitArgs(w: WorkspaceName): string[] {
    return evidenceGitArgs(join(this.dir, "objects.git"), this.paths[w]);
  }

  /** The tree of a workspace's files; `partial` names files that could not be read (left out). */
  private async treeOf(w: WorkspaceName): Promise<{ tree: string; partial?: string }> {
    if (!existsSync(this.paths[w])) throw new Error("the workspace does not exist");
    const env = { GIT_INDEX_FILE: this.indexOf(w) };
    const layers = this.layers[w];
    if (!layers) return readTree(this.gitArgs(w), env);
    // Copy-on-write: the index already holds the last state; only the paths the upper layer names (and
    // those it named before: a file made and removed again) are staged again.
    const seen = this.seen.get(w) ?? new Set<string>();
    for (const path of overlayChangedPaths(layers)) seen.add(path);
    this.seen.set(w, seen);
    if (seen.size === 0) return { tree: layers.base.tree };
    const staged = await stageChangedPaths(this.gitArgs(w), [...seen], { env, timeoutMs: deadlineMs });
    if (staged.code === null) throw new Error(`reading the files took longer than ${deadlineMs / 1000} s`);
    const tree = await gitOut([...this.gitArgs(w), "write-tree"], { env, timeoutMs: deadlineMs });
    return staged.code === 0 ? { tree } : { tree, partial: partialText(staged.stderr) };
  }

  private async changes(from: string, to: string): Promise<FileChange[]> {
    if (from === to) return [];
    const out = (
      await git(
        [
          ...harnessConfig,
          "--git-dir",
          join(this.dir, "objects.git"),
          "diff-tree",
          "-r",
          "-z",
          "--raw",
          "--no-renames",
          "--abbrev=40",
          from,
          to,
        ],
        { timeoutMs: deadlineMs },
      )
    ).stdout;
    return parseRawDiff(out);
  }

  /** The state of every workspace now, and what changed since the previous snapshot (none for the first). */
  async snapshot(): Promise<WorkspaceSnapshot> {
    const out: WorkspaceSnapshot = { trees: {} as WorkspaceSnapshot["trees"], changed: {} };
    const results = await Promise.all(
      workspaceNames.map(async (w) => {
        try {
          // A copy-on-write workspace changes only in its upper layer: that alone is walked.
          const fp = existsSync(this.paths[w]) ? statFingerprint(this.layers[w]?.upper ?? this.paths[w]) : null;
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
          return {
            w,
            tree: null as string | null,
            changed: [] as FileChange[],
            error: (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 300),
          };
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
