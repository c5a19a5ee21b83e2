import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { git } from "../core/git.js";

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

/** Settings of the harness-owned git directory (the workspace's own config is never read). */
const safeConfig = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "diff.noprefix=false"];

export interface CollectedPatch {
  file: string;
  bytes: number;
  sha256: string;
  /** Changed paths (after the change; deletions by their old path), sorted. */
  files: string[];
}

/**
 * Diffs a workspace's files against its base revision and writes the patch to `outFile` atomically:
 * new, changed and deleted files, binary-safe. The agent's `.git` (its config, hooks, filters,
 * fsmonitor, includes, objects) is never read: the diff runs in a temporary git directory the
 * harness owns, whose objects come from the repository cache (`objectStore`), with the workspace
 * as its work tree.
 */
export async function collectPatch(workspace: string, baseCommit: string, outFile: string, objectStore: string): Promise<CollectedPatch> {
  const gitDir = mkdtempSync(join(tmpdir(), "switch-swe-collect-"));
  mkdirSync(dirname(outFile), { recursive: true });
  const tmpOut = join(dirname(outFile), `.${basename(outFile)}.${process.pid}.tmp`);
  const env = { GIT_DIR: gitDir, GIT_WORK_TREE: workspace, GIT_INDEX_FILE: join(gitDir, "index"), GIT_ATTR_NOSYSTEM: "1", GIT_NO_REPLACE_OBJECTS: "1" };
  try {
    await git(["init", "-q", "--bare", "--template=", gitDir]);
    writeFileSync(join(gitDir, "objects", "info", "alternates"), `${objectStore}\n`);
    await git([...safeConfig, "read-tree", baseCommit], { env, cwd: workspace });
    const excludes = artifactExcludes.map((g) => `:(exclude,glob)${g}`);
    await git([...safeConfig, "add", "-A", "--", ".", ...excludes], { env, cwd: workspace });
    const diffArgs = ["diff", "--cached", "--no-renames", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"];
    await git([...safeConfig, ...diffArgs, "--binary", `--output=${tmpOut}`, baseCommit, "--"], { env, cwd: workspace });
    const data = readFileSync(tmpOut);
    renameSync(tmpOut, outFile);
    return {
      file: outFile,
      bytes: data.length,
      sha256: createHash("sha256").update(data).digest("hex"),
      files: diffPaths(data.toString("utf8")),
    };
  } finally {
    rmSync(gitDir, { recursive: true, force: true });
    rmSync(tmpOut, { force: true });
  }
}

/** Undoes git's C-style quoting of a path ("a/caf\\303\\251 x.py" → a/café x.py). */
function unquote(text: string): string {
  if (!text.startsWith('"')) return text;
  const body = text.slice(1, -1);
  const bytes: number[] = [];
  const escapes: Record<string, number> = { n: 10, t: 9, r: 13, b: 8, f: 12, v: 11, a: 7, '"': 34, "\\": 92 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const next = body[i + 1] ?? "";
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(escapes[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** The paths of a `git diff --no-renames` patch, from its `diff --git a/P b/P` headers, sorted. */
export function diffPaths(patch: string): string[] {
  const out = new Set<string>();
  for (const line of patch.split("\n")) {
    if (!line.startsWith("diff --git ")) continue;
    const rest = line.slice("diff --git ".length);
    let path: string;
    if (rest.startsWith('"')) {
      const m = /^("(?:[^"\\]|\\.)*")/.exec(rest);
      path = unquote(m ? m[1]! : rest).replace(/^a\//, "");
    } else {
      // Both sides are the same path (no renames): "a/P b/P".
      path = rest.slice(2, (rest.length - 1) / 2);
    }
    out.add(path);
  }
  return [...out].sort();
}
