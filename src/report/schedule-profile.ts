import type { ScheduleStep } from "../sessions/schema.js";

export interface ScheduleProfile {
  requests: number;
  /** Consecutive requests that name different workspaces. */
  workspace_switches: number;
  /** Substantive focus requests right after a request in another workspace (not the first focus request, not finalization). */
  focus_returns: number;
  /** Per step: is it a focus return. */
  returns: boolean[];
}

/** The schedule profile of one session, from its schedule alone. Pure. */
export function scheduleProfile(steps: readonly ScheduleStep[], focus: string): ScheduleProfile {
  let switches = 0;
  let focusReturns = 0;
  let seenFocus = false;
  const returns = steps.map((step, i) => {
    const prev = i > 0 ? steps[i - 1]! : null;
    if (prev && prev.workspace !== step.workspace) switches++;
    if (step.task !== focus || step.kind !== "stage") return false;
    const first = !seenFocus;
    seenFocus = true;
    const isReturn = !first && prev !== null && prev.workspace !== step.workspace;
    if (isReturn) focusReturns++;
    return isReturn;
  });
  return { requests: steps.length, workspace_switches: switches, focus_returns: focusReturns, returns };
}
