import { mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { git } from "../core/git.js";
import { pathMatcher } from "../core/path-globs.js";
import { sha256 } from "../core/digest.js";

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
];

/** Git settings that a workspace's own config (which the agent may have changed) must not override. */
const safeConfig = ["-c", "core.fsmonitor=false", "-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "diff.noprefix=false"];

export interface CollectedPatch {
  file: string;
  bytes: number;
  sha256: string;
  /** Changed paths (after the change; deletions by their old path), sorted. */
  files: string[];
}

/**
 * Diffs a workspace against its base revision and writes the patch to `outFile` atomically:
 * committed and uncommitted changes, new and deleted files, binary-safe. Works on a temporary index
 * (`GIT_INDEX_FILE`) seeded from the base, so the agent's own index and HEAD are left untouched.
 */
export async function collectPatch(workspace: string, baseCommit: string, outFile: string): Promise<CollectedPatch> {
  const index = join(tmpdir(), `switch-swe-artifact-${process.pid}-${Math.random().toString(36).slice(2)}.index`);
  mkdirSync(dirname(outFile), { recursive: true });
  const tmpOut = join(dirname(outFile), `.${basename(outFile)}.${process.pid}.tmp`);
  const env = { GIT_INDEX_FILE: index };
  try {
    await git([...safeConfig, "-C", workspace, "read-tree", baseCommit], { env });
    const excludes = artifactExcludes.map((g) => `:(exclude,glob)${g}`);
    await git([...safeConfig, "-C", workspace, "add", "-A", "--", ".", ...excludes], { env });
    const files = await dropExcluded(workspace, baseCommit, env);
    const diffArgs = ["diff", "--cached", "--no-renames", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"];
    await git([...safeConfig, "-C", workspace, ...diffArgs, "--binary", `--output=${tmpOut}`, baseCommit, "--"], { env });
    const data = readFileSync(tmpOut);
    renameSync(tmpOut, outFile);
    return {
      file: outFile,
      bytes: data.length,
      sha256: sha256(data),
      files,
    };
  } finally {
    rmSync(index, { force: true });
    rmSync(tmpOut, { force: true });
  }
}

const isExcluded = pathMatcher(artifactExcludes);

/** Changed paths of the staged index against the base, NUL-separated so no path needs unquoting. */
async function changedPaths(workspace: string, baseCommit: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const out = await git([...safeConfig, "-C", workspace, "diff", "--cached", "--no-renames", "--name-only", "-z", baseCommit, "--"], { env });
  return out.stdout.split("\0").filter((p) => p !== "");
}

/** Unstages whatever the dialect excludes that git's pathspecs let through; returns the paths kept, sorted. */
async function dropExcluded(workspace: string, baseCommit: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const paths = await changedPaths(workspace, baseCommit, env);
  const excluded = paths.filter(isExcluded);
  if (excluded.length > 0) {
    await git([...safeConfig, "-C", workspace, "reset", "-q", "--pathspec-from-file=-", "--pathspec-file-nul", baseCommit], { env, input: `${excluded.join("\0")}\0` });
  }
  return paths.filter((p) => !isExcluded(p)).sort();
}
