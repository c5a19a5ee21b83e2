/**
 * Requested test ids that pytest says do not exist. pytest names a missing parameter case by its
 * bare function (`test_p` for `test_p[9]`), which may also have cases that do exist; such ids are
 * requested again as their function, so the existing cases run and the missing one is simply not
 * reported. Pure functions.
 */

export interface NotFoundStep {
  /** The ids to request next. */
  next: string[];
  /** Original ids now known not to exist. */
  dropped: string[];
  /** False when nothing pytest named matches a requested id (no point in running again). */
  progress: boolean;
}

const names = (target: string, id: string) => target === id || target.endsWith(`/${id}`);

/** `expanded` (bare function id → the original parametrized ids it stands for) is updated in place. */
export function dropNotFound(ids: readonly string[], targets: readonly string[], expanded: Map<string, string[]>): NotFoundStep {
  const next: string[] = [];
  const dropped: string[] = [];
  let progress = false;
  for (const id of ids) {
    const file = id.split("::")[0]!;
    if (targets.some((t) => names(t, id) || names(t, file))) {
      dropped.push(...(expanded.get(id) ?? [id]));
      progress = true;
      continue;
    }
    const bracket = id.indexOf("[");
    const bare = bracket >= 0 ? id.slice(0, bracket) : null;
    if (bare !== null && targets.some((t) => names(t, bare))) {
      expanded.set(bare, [...(expanded.get(bare) ?? []), id]);
      if (!next.includes(bare)) next.push(bare);
      progress = true;
      continue;
    }
    if (!next.includes(id)) next.push(id);
  }
  return { next, dropped, progress };
}
