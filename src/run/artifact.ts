import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
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
    const data = readFileSync(tmpOut);
    renameSync(tmpOut, outFile);
    return {
      file: outFile,
      bytes: data.length,
      sha256: createHash("sha256").update(data).digest("hex"),
      files: diffPaths(data.toString("utf8")),
    };
  } finally {
    rmSync(index, { force: true });
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
