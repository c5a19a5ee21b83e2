import { posix } from "node:path";
import type { RepoSpec } from "./schema.js";
import { sourceMatcher } from "./file-rules.js";
import { touchedPaths } from "./patch-files.js";
import { pathMatcher } from "../core/path-globs.js";

/** The source files a task's reference changes, under its repository's source rules. Sorted. */
export function taskSourceFiles(stagePatches: readonly string[], repo: Pick<RepoSpec, "source">): string[] {
  const isSource = sourceMatcher(repo);
  const files = new Set<string>();
  for (const patch of stagePatches) for (const p of touchedPaths(patch)) if (isSource(p)) files.add(p);
  return [...files].sort();
}

const unitMatchers = new WeakMap<object, (file: string) => string>();

/**
 * The unit locality compares for each file: `subsystem:NAME` when one of the repository's declared
 * subsystems matches it (the first in declaration order), else its immediate parent directory (a file
 * at the repository root has "."). The prefix keeps a subsystem named like a directory distinct from it.
 */
export function localityUnitOf(repo: Pick<RepoSpec, "source">): (file: string) => string {
  const cached = unitMatchers.get(repo);
  if (cached) return cached;
  const groups = Object.entries(repo.source?.subsystems ?? {}).map(([name, globs]) => ({ name, match: pathMatcher(globs) }));
  const unit = (file: string) => {
    const group = groups.find((g) => g.match(file));
    return group ? `subsystem:${group.name}` : posix.dirname(file);
  };
  unitMatchers.set(repo, unit);
  return unit;
}

/** Locality units of files (see localityUnitOf), sorted and distinct. */
export function localityUnits(files: readonly string[], repo: Pick<RepoSpec, "source">): string[] {
  const unit = localityUnitOf(repo);
  return [...new Set(files.map(unit))].sort();
}
