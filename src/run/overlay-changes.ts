import { lstatSync, readdirSync, type Dirent } from "node:fs";
import { join } from "node:path";

/** Where one copy-on-write workspace's files are: the shared read-only base, the private upper layer, and the merged view. */
export interface WorkspaceLayers {
  lower: string;
  upper: string;
  merged: string;
}

const names = (dir: string): Dirent[] => {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
};

const isDir = (p: string): boolean => lstatSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;

/** Every file (and nested repository) under `rel` of `root`, as git would list them: `.git` directories are repositories, never descended into. */
function filesUnder(root: string, rel: string, out: Set<string>): void {
  for (const e of names(join(root, rel))) {
    const p = `${rel}/${e.name}`;
    if (e.isDirectory()) {
      if (names(join(root, p)).some((c) => c.name === ".git")) out.add(p.slice(1));
      else filesUnder(root, p, out);
    } else if (!e.isCharacterDevice()) out.add(p.slice(1)); // a character device in the upper layer is a whiteout
  }
}

/**
 * The paths (relative, `/`-separated) where a workspace may differ from its base, read from the upper
 * layer alone, so the cost follows what the agent changed, not the repository's size: every file in
 * the upper layer (written, created, or copied up), and every base entry the merged view no longer
 * shows (deleted: a whiteout, or hidden by a directory made again), with the base files under it.
 * The workspace's own `.git` is left out (the harness never reads it). A superset is harmless: a path
 * that did not change stages to what the base has.
 */
export function overlayChangedPaths(l: WorkspaceLayers): string[] {
  const out = new Set<string>();
  const walk = (rel: string): void => {
    const lowerNames = new Set(names(join(l.lower, rel)).map((e) => e.name));
    for (const e of names(join(l.upper, rel))) {
      if (rel === "" && e.name === ".git") continue;
      const p = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (names(join(l.upper, p)).some((c) => c.name === ".git")) out.add(p.slice(1));
        else walk(p);
      } else if (!e.isCharacterDevice()) {
        out.add(p.slice(1));
        // A base directory replaced by a file: the base's files under it are gone.
        if (lowerNames.has(e.name) && isDir(join(l.lower, p))) filesUnder(l.lower, p, out);
      }
    }
    if (lowerNames.size === 0) return;
    const shown = new Set(names(join(l.merged, rel)).map((e) => e.name));
    for (const n of lowerNames) {
      if (shown.has(n) || (rel === "" && n === ".git")) continue;
      const p = `${rel}/${n}`;
      if (isDir(join(l.lower, p))) filesUnder(l.lower, p, out);
      else out.add(p.slice(1));
    }
  };
  walk("");
  return [...out].sort();
}
