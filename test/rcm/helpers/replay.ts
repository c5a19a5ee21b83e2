import type { AssemblyPlan } from "../../../src/rcm/assembly.js";
import type { RcmEngine } from "../../../src/rcm/engine.js";
import type { Group } from "../../../src/rcm/history.js";

/**
 * Feeds groups one by one, as a host would: each is the current request once (without its actions),
 * then gets its actions. Returns what `step` makes of each step's plan, called right after that step.
 */
export function replay<T>(e: RcmEngine, groups: Group[], step: (plan: AssemblyPlan, group: Group) => T): T[] {
  const seen: Group[] = [];
  return groups.map((g) => {
    const actions = g.actions;
    const current = { ...g, actions: [] as Group["actions"] };
    seen.push(current);
    const plan = e.prepare(seen);
    current.actions.push(...actions);
    return step(plan, g);
  });
}
