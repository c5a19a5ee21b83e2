import { lstatSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitTry } from "../core/git.js";
import type { RunOptions, RunResult } from "../core/process.js";

/**
 * The harness's git over a verifier checkout whose work tree an artifact writes. Its git directory
 * lives OUTSIDE the work tree while the harness works on it (`detachGitDir`), so nothing the artifact
 * writes can be read as git configuration, hooks or attributes: no system or global configuration,
 * no hooks, no fsmonitor, and every attribute that runs or converts anything reset by the git
 * directory's own `info/attributes`, which outranks every `.gitattributes` of the tree.
 */
export interface BedGit {
  workTree: string;
  /** The git directory, outside the work tree; null for a tree the artifact never touched (git in its own `.git`). */
  gitDir: string | null;
}

/** Settings that make the git directory's own configuration the only one, and inert. */
const inertConfig = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.autocrlf=false",
  "-c",
  "core.safecrlf=false",
  "-c",
  "core.symlinks=true",
];

/** Every attribute that changes bytes or runs a program back to unspecified. */
const neutralAttributes = "* !text !eol !ident !filter !working-tree-encoding !merge !diff !binary\n";

/** Moves the checkout's `.git` to `gitDir` (outside the work tree) and neutralises attributes there. */
export function detachGitDir(checkout: string, gitDir: string): BedGit {
  renameSync(join(checkout, ".git"), gitDir);
  mkdirSync(join(gitDir, "info"), { recursive: true });
  writeFileSync(join(gitDir, "info", "attributes"), neutralAttributes);
  return { workTree: checkout, gitDir };
}

/**
 * Puts the git directory back for the test run (the repository's tests see the checkout as the
 * dataset's qualification saw it). Only after the tree was compared with what the artifact may
 * write, so no `.git` of the artifact's can be there; after this the harness runs no git in it.
 */
export function reattachGitDir(bed: BedGit): void {
  if (bed.gitDir === null) return;
  const dest = join(bed.workTree, ".git");
  if (lstatSync(dest, { throwIfNoEntry: false })) throw new Error(`${dest} exists: the checkout was changed outside the harness`);
  renameSync(bed.gitDir, dest);
  bed.gitDir = null;
}

/** Runs git on the checkout: with the outside git directory and inert settings when detached. */
export function bedGit(bed: BedGit, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  if (bed.gitDir === null) return gitTry(args, { ...opts, cwd: bed.workTree });
  const env = {
    GIT_DIR: bed.gitDir,
    GIT_WORK_TREE: bed.workTree,
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_CEILING_DIRECTORIES: bed.workTree,
    ...opts.env,
  };
  return gitTry([...inertConfig, ...args], { ...opts, cwd: bed.workTree, env });
}

/** A tree in its own `.git` (one the artifact never touched: qualification, mining, the control run). */
export function plainTree(checkout: string): BedGit {
  return { workTree: checkout, gitDir: null };
}
