import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { git, gitTry } from "../core/git.js";
import type { RunOptions } from "../core/process.js";
import { pathMatcher } from "../core/path-globs.js";
import { sha256 } from "../core/digest.js";
import { submissionFile } from "./message-templates.js";

/**
 * Paths never collected into an artifact: build outputs, caches, virtual environments and agent logs.
 * Globs in the project's path dialect (core/path-globs.ts); changes under these paths are ignored, even
 * to files that the base revision tracks. Git's own glob pathspecs agree with the dialect on these
 * patterns (no braces), so git skips them without hashing; the matcher then has the last word.
 */
export const artifactExcludes: readonly string[] = [
  "**/__pycache__/**",
  "**/*.pyc",
  "**/.pytest_cache/**",
  "**/.venv/**",
  "**/venv/**",
  "**/node_modules/**",
  "build/**",
  "dist/**",
  "**/*.egg-info/**",
  "**/.opencode/**",
  "**/.claude/**",
  "**/.codex/**",
  "**/*.log",
  // The agent's submission file (run --submission agent) at the workspace root: it is the artifact, never part of the checkout's diff.
  submissionFile,
];

/** Settings of the harness-owned git directory (the workspace's own config is never read). */
const safeConfig = [
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.autocrlf=false",
  "-c",
  "core.safecrlf=false",
  "-c",
  "diff.noprefix=false",
];

/** Every attribute that changes how git stages or diffs a file, back to unspecified (git detects binary content itself). */
const neutralAttributes = "* !diff !text !eol !ident !filter !working-tree-encoding !merge !binary";

export interface CollectedPatch {
  file: string;
  bytes: number;
  sha256: string;
  /** Changed paths (after the change; deletions by their old path), sorted. */
  files: string[];
  /** Special files (FIFO, socket, device) of the work tree, left out of the patch: git cannot read them. */
  skipped: string[];
}

/** A directory entry git cannot stage (it reads regular files, links and directories only). */
const isSpecial = (e: { isFIFO(): boolean; isSocket(): boolean; isBlockDevice(): boolean; isCharacterDevice(): boolean }) =>
  e.isFIFO() || e.isSocket() || e.isBlockDevice() || e.isCharacterDevice();

/**
 * The special files among `paths`, or of the whole work tree (without `.git` and nested repositories):
 * one FIFO the agent left made `git add` fail and the session's artifact uncollectable.
 */
export function specialFiles(workspace: string, paths?: readonly string[]): string[] {
  if (paths)
    return paths.filter((p) => {
      try {
        return isSpecial(lstatSync(join(workspace, p)));
      } catch {
        return false; // gone, or a parent is no longer a directory: a deletion, not a special file
      }
    });
  const out: string[] = [];
  const stack = [""];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(join(workspace, rel), { withFileTypes: true });
    } catch {
      continue; // unreadable: git reports it itself
    }
    // A nested repository is staged as a gitlink: git does not read its files.
    if (rel !== "" && entries.some((e) => e.name === ".git")) continue;
    for (const e of entries) {
      const p = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory() && e.name !== ".git") stack.push(p);
      else if (isSpecial(e)) out.push(p);
    }
  }
  return out.sort();
}

/**
 * Diffs a workspace's files against its base revision and writes the patch to `outFile` atomically:
 * new, changed and deleted files, binary-safe. The agent's `.git` (its config, hooks, filters,
 * fsmonitor, includes, objects) is never read: the diff runs in a temporary git directory the
 * harness owns, whose objects come from the repository cache (`objectStore`), with the workspace
 * as its work tree.
 */
export async function collectPatch(
  workspace: string,
  baseCommit: string,
  outFile: string,
  objectStore: string,
  changed?: readonly string[],
): Promise<CollectedPatch> {
  // A copy-on-write workspace whose upper layer names nothing collectable is its base: an empty patch, no git.
  if (changed && changed.every((p) => isExcluded(p))) return writePatch(outFile, Buffer.alloc(0), []);
  const skipped = specialFiles(workspace, changed).filter((p) => !isExcluded(p));
  const gitDir = mkdtempSync(join(tmpdir(), "switch-swe-collect-"));
  mkdirSync(dirname(outFile), { recursive: true });
  const tmpOut = join(dirname(outFile), `.${basename(outFile)}.${process.pid}.tmp`);
  const env = {
    GIT_DIR: gitDir,
    GIT_WORK_TREE: workspace,
    GIT_INDEX_FILE: join(gitDir, "index"),
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
  };
  try {
    // A git directory is HEAD, objects/ and refs/: laid out by hand, one git process fewer per patch.
    mkdirSync(join(gitDir, "objects", "info"), { recursive: true });
    mkdirSync(join(gitDir, "refs"));
    writeFileSync(join(gitDir, "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(gitDir, "objects", "info", "alternates"), `${objectStore}\n`);
    // The workspace's own .gitattributes must not shape the artifact: a `binary` or `-diff` there made
    // text files come out as binary patches that no reader (nor the suspicious-artifact scan) reads, and
    // `text`/`eol`/`filter` would change the bytes staged. info/attributes outranks every in-tree file.
    mkdirSync(join(gitDir, "info"), { recursive: true });
    writeFileSync(join(gitDir, "info", "attributes"), `${neutralAttributes}\n`);
    await git([...safeConfig, "read-tree", baseCommit], { env, cwd: workspace });
    if (changed) {
      // A copy-on-write workspace: only the paths its upper layer names can differ from the base.
      const staged = await stageChangedPaths(
        [...safeConfig],
        changed.filter((p) => !skipped.includes(p)),
        { env, cwd: workspace },
      );
      if (staged.code !== 0) throw new Error(staged.stderr.trim().split("\n")[0] ?? "git update-index failed");
    } else {
      const excludes = [...artifactExcludes.map((g) => `:(exclude,glob)${g}`), ...skipped.map((p) => `:(exclude,literal)${p}`)];
      await git([...safeConfig, "add", "-A", "--", ".", ...excludes], { env, cwd: workspace });
    }
    const files = await dropExcluded(workspace, baseCommit, env);
    const diffArgs = ["diff", "--cached", "--no-renames", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"];
    await git([...safeConfig, ...diffArgs, "--binary", `--output=${tmpOut}`, baseCommit, "--"], { env, cwd: workspace });
    const data = readFileSync(tmpOut);
    renameSync(tmpOut, outFile);
    return { file: outFile, bytes: data.length, sha256: sha256(data), files, skipped };
  } finally {
    rmSync(gitDir, { recursive: true, force: true });
    rmSync(tmpOut, { force: true });
  }
}

/** Writes a patch's bytes atomically. */
function writePatch(outFile: string, data: Buffer, files: string[]): CollectedPatch {
  mkdirSync(dirname(outFile), { recursive: true });
  const tmpOut = join(dirname(outFile), `.${basename(outFile)}.${process.pid}.tmp`);
  writeFileSync(tmpOut, data);
  renameSync(tmpOut, outFile);
  return { file: outFile, bytes: data.length, sha256: sha256(data), files, skipped: [] };
}

/** The dialect's last word on `artifactExcludes` (git's pathspecs only prefilter). */
export const isExcluded = pathMatcher(artifactExcludes);

/**
 * Stages exactly `paths` of the work tree into the index as `git add -A` would have staged them:
 * excluded paths skipped, untracked files the work tree's ignore rules match skipped (tracked ones
 * are updated, as git add does), missing ones removed, a file replacing a directory (or the reverse)
 * replacing its entries, a nested repository as a gitlink. `gitArgs` name the git directory, work
 * tree and settings; the index comes from `opts.env`. Used where the paths that can differ are known
 * (the upper layer of a copy-on-write workspace), so nothing else of the tree is read.
 */
export async function stageChangedPaths(
  gitArgs: readonly string[],
  paths: readonly string[],
  opts: RunOptions,
): Promise<{ code: number | null; stderr: string }> {
  const kept = paths.filter((p) => p !== "" && !isExcluded(p));
  if (kept.length === 0) return { code: 0, stderr: "" };
  const input = `${kept.join("\0")}\0`;
  // Exit 1: none is ignored; tracked paths are never reported (git add updates them whatever the rules say).
  const check = await gitTry([...gitArgs, "check-ignore", "-z", "--stdin"], { ...opts, input });
  if (check.code !== 0 && check.code !== 1) return { code: check.code, stderr: check.stderr };
  const ignored = new Set(check.stdout.split("\0"));
  const staged = kept.filter((p) => !ignored.has(p));
  if (staged.length === 0) return { code: 0, stderr: "" };
  const r = await gitTry([...gitArgs, "update-index", "--add", "--remove", "--replace", "-z", "--stdin"], {
    ...opts,
    input: `${staged.join("\0")}\0`,
  });
  return { code: r.timedOut ? null : r.code, stderr: r.timedOut ? "reading the files took too long" : r.stderr };
}

/** Changed paths of the staged index against the base, NUL-separated so no path needs unquoting. */
async function changedPaths(workspace: string, baseCommit: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const out = await git([...safeConfig, "-C", workspace, "diff", "--cached", "--no-renames", "--name-only", "-z", baseCommit, "--"], {
    env,
  });
  return out.stdout.split("\0").filter((p) => p !== "");
}

/** Unstages whatever the dialect excludes that git's pathspecs let through; returns the paths kept, sorted. */
async function dropExcluded(workspace: string, baseCommit: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const paths = await changedPaths(workspace, baseCommit, env);
  const excluded = paths.filter(isExcluded);
  if (excluded.length > 0) {
    await git([...safeConfig, "-C", workspace, "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul", baseCommit], {
      env,
      input: `${excluded.join("\0")}\0`,
    });
  }
  return paths.filter((p) => !isExcluded(p)).sort();
}
