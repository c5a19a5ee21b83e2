import type { ScheduleStep } from "../sessions/schema.js";

export interface ScheduleProfile {
  requests: number;
  /** Consecutive requests that name different workspaces. */
  workspace_switches: number;
  /** Substantive focus requests right after a request in another workspace (finalization excluded). */
  focus_returns: number;
  /** Per step: is it a focus return. */
  returns: boolean[];
}

/**
 * The schedule profile of one session, from its schedule alone (the same counts as
 * `sessions build`'s profile, src/sessions/stats.ts), plus the per-step flags the timeline draws. Pure.
 */
export function scheduleProfile(steps: readonly ScheduleStep[], focus: string): ScheduleProfile {
  let switches = 0;
  let focusReturns = 0;
  const returns = steps.map((step, i) => {
    const prev = i > 0 ? steps[i - 1]! : null;
    const moved = prev !== null && prev.workspace !== step.workspace;
    if (moved) switches++;
    const isReturn = moved && step.task === focus && step.kind === "stage";
    if (isReturn) focusReturns++;
    return isReturn;
  });
  return { requests: steps.length, workspace_switches: switches, focus_returns: focusReturns, returns };
}
