import type { Locality } from "../formats/sessions.js";

/**
 * What locality is computed from: a task's source files and their locality units (each file's
 * immediate parent directory, or its declared subsystem: dataset/source-files.ts).
 */
export interface Footprint {
  id: string;
  repo: string;
  files: ReadonlySet<string>;
  units: ReadonlySet<string>;
}

function intersects(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) if (large.has(x)) return true;
  return false;
}

/**
 * Locality of a pair of tasks: null when they are not eligible (different repositories or a
 * shared source file), `near` when their locality units intersect, `far` otherwise.
 */
export function pairLocality(a: Footprint, b: Footprint): Locality | null {
  if (a.id === b.id || a.repo !== b.repo) return null;
  if (intersects(a.files, b.files)) return null;
  return intersects(a.units, b.units) ? "near" : "far";
}

export interface Candidates {
  near: string[];
  far: string[];
  /** Same-repository tasks excluded because they share a source file. */
  overlapping: number;
}

/**
 * Eligible interruption candidates of every task, grouped by locality, ids sorted. Uses inverted
 * indexes (file -> tasks, unit -> tasks), so the cost grows with how much tasks overlap rather
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
    const byUnit = new Map<string, string[]>();
    for (const f of sorted) {
      for (const file of f.files) byFile.set(file, [...(byFile.get(file) ?? []), f.id]);
      for (const unit of f.units) byUnit.set(unit, [...(byUnit.get(unit) ?? []), f.id]);
    }
    for (const f of sorted) {
      const overlapping = new Set<string>();
      for (const file of f.files) for (const id of byFile.get(file)!) if (id !== f.id) overlapping.add(id);
      const nearSet = new Set<string>();
      for (const unit of f.units) for (const id of byUnit.get(unit)!) if (id !== f.id && !overlapping.has(id)) nearSet.add(id);
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
