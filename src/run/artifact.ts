import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { git, gitOut } from "../core/git.js";

/**
 * Paths never collected into an artifact: build outputs, caches, virtual environments and agent logs.
 * Git pathspec globs relative to the repository root (`**\/` = any directory, including the root).
 * Changes under these paths are ignored, even to files that the base revision tracks.
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
    const diffArgs = ["diff", "--cached", "--no-renames", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"];
    await git([...safeConfig, "-C", workspace, ...diffArgs, "--binary", `--output=${tmpOut}`, baseCommit, "--"], { env });
    const names = await gitOut([...safeConfig, "-C", workspace, "diff", "--cached", "--no-renames", "--name-only", "-z", baseCommit, "--"], { env });
    const data = readFileSync(tmpOut);
    renameSync(tmpOut, outFile);
    return {
      file: outFile,
      bytes: data.length,
      sha256: createHash("sha256").update(data).digest("hex"),
      files: names.split("\0").filter(Boolean).sort(),
    };
  } finally {
    rmSync(index, { force: true });
    rmSync(tmpOut, { force: true });
  }
}
