import { posix } from "node:path";
import type { RepoSpec } from "./schema.js";
import { sourceMatcher } from "./file-rules.js";
import { touchedPaths } from "./patch-files.js";

/** The source files a task's reference changes, under its repository's source rules. Sorted. */
export function taskSourceFiles(stagePatches: readonly string[], repo: Pick<RepoSpec, "source">): string[] {
  const isSource = sourceMatcher(repo);
  const files = new Set<string>();
  for (const patch of stagePatches) for (const p of touchedPaths(patch)) if (isSource(p)) files.add(p);
  return [...files].sort();
}

/** Immediate parent directories of files; a file at the repository root has parent ".". */
export function parentDirs(files: readonly string[]): string[] {
  return [...new Set(files.map((f) => posix.dirname(f)))].sort();
}
