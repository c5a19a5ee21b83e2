import type { Locality } from "../formats/sessions.js";

/** What locality is computed from: a task's source files and their immediate parent directories. */
export interface Footprint {
  id: string;
  repo: string;
  files: ReadonlySet<string>;
  parents: ReadonlySet<string>;
}

function intersects(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) if (large.has(x)) return true;
  return false;
}

/**
 * Locality of a pair of tasks: null when they are not eligible (different repositories or a
 * shared source file), `near` when their parent-directory sets intersect, `far` otherwise.
 */
export function pairLocality(a: Footprint, b: Footprint): Locality | null {
  if (a.id === b.id || a.repo !== b.repo) return null;
  if (intersects(a.files, b.files)) return null;
  return intersects(a.parents, b.parents) ? "near" : "far";
}

export interface Candidates {
  near: string[];
  far: string[];
  /** Same-repository tasks excluded because they share a source file. */
  overlapping: number;
}

/**
 * Eligible interruption candidates of every task, grouped by locality, ids sorted. Uses inverted
 * indexes (file -> tasks, directory -> tasks), so the cost grows with how much tasks overlap rather
 * than with the square of the repository's task count.
 */
export function candidatesByTask(footprints: readonly Footprint[]): Map<string, Candidates> {
  const byRepo = new Map<string, Footprint[]>();
  for (const f of footprints) {
    const list = byRepo.get(f.repo) ?? [];
    list.push(f);
    byRepo.set(f.repo, list);
  }
  const out = new Map<string, Candidates>();
  for (const group of byRepo.values()) {
    const sorted = [...group].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    const byFile = new Map<string, string[]>();
    const byDir = new Map<string, string[]>();
    for (const f of sorted) {
      for (const file of f.files) byFile.set(file, [...(byFile.get(file) ?? []), f.id]);
      for (const dir of f.parents) byDir.set(dir, [...(byDir.get(dir) ?? []), f.id]);
    }
    for (const f of sorted) {
      const overlapping = new Set<string>();
      for (const file of f.files) for (const id of byFile.get(file)!) if (id !== f.id) overlapping.add(id);
      const nearSet = new Set<string>();
      for (const dir of f.parents) for (const id of byDir.get(dir)!) if (id !== f.id && !overlapping.has(id)) nearSet.add(id);
      const c: Candidates = { near: [], far: [], overlapping: overlapping.size };
      for (const g of sorted) {
        if (g.id === f.id || overlapping.has(g.id)) continue;
        (nearSet.has(g.id) ? c.near : c.far).push(g.id);
      }
      out.set(f.id, c);
    }
  }
  return out;
}
