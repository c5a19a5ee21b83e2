import { lstatSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * Every entry of a checkout (`.git/` and ignored files included) by its relative path, with a
 * fingerprint that changes whenever the entry is written: what applying an artifact changed is what
 * differs between a snapshot before and one after, whatever the applying tool (git, GNU patch) did.
 */
export type TreeSnapshot = Map<string, string>;

function fingerprint(full: string): string {
  const st = lstatSync(full);
  if (st.isDirectory()) return `d:${st.mode}`;
  if (st.isSymbolicLink()) return `l:${readlinkSync(full)}`;
  return `${st.isFile() ? "f" : "o"}:${st.mode}:${st.size}:${st.ino}:${st.mtimeMs}:${st.ctimeMs}`;
}

/** A walk of the whole tree, without recursion (a deep tree cannot exhaust the stack). */
export function snapshotTree(root: string): TreeSnapshot {
  const out: TreeSnapshot = new Map();
  const stack: string[] = [""];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    for (const e of readdirSync(rel === "" ? root : join(root, rel), { withFileTypes: true })) {
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      out.set(path, fingerprint(join(root, path)));
      if (e.isDirectory()) stack.push(path);
    }
  }
  return out;
}

/** Paths added, removed or written between two snapshots, sorted. */
export function changedPaths(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const changed = new Set<string>();
  for (const [p, f] of after) if (before.get(p) !== f) changed.add(p);
  for (const p of before.keys()) if (!after.has(p)) changed.add(p);
  return [...changed].sort();
}

/**
 * The changed paths no approved path accounts for: an approved path itself, or a directory made or
 * removed on the way to one (its ancestor). Anything else (`.git/config`, a `conftest.py` the filter
 * dropped, a file a second parser read out of text the first did not) is listed.
 */
export function unapprovedChanges(changed: readonly string[], approved: Iterable<string>): string[] {
  const ok = new Set<string>();
  for (const p of approved) {
    const parts = p.split("/");
    for (let k = 1; k <= parts.length; k++) ok.add(parts.slice(0, k).join("/"));
  }
  return changed.filter((p) => !ok.has(p));
}
