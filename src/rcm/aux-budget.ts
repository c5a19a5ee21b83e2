import type { AuxUsage } from "./aux-model.js";
import type { AuxBudget } from "./options.js";

/** What a conversation has spent on auxiliary calls (persisted with its state, so restarts count). */
export interface AuxSpent {
  calls: number;
  /** Input (cached included) plus output tokens of every auxiliary call. */
  tokens: number;
  /** Set once the budget ran out (RCM says so once, then routes deterministically). */
  exhausted: boolean;
}

export const noAuxSpent = (): AuxSpent => ({ calls: 0, tokens: 0, exhausted: false });

/** True while another call fits the budget. */
export function auxAllowed(spent: AuxSpent, budget: AuxBudget): boolean {
  return spent.calls < budget.calls && spent.tokens < budget.tokens;
}

/** Counts one call (a call without reported usage still counts as a call). */
export function chargeAux(spent: AuxSpent, usage: AuxUsage | null): void {
  spent.calls++;
  if (usage) spent.tokens += usage.input_tokens + usage.cached_input_tokens + usage.output_tokens;
}

/** The one notice given when the budget runs out. */
export function budgetNotice(spent: AuxSpent, budget: AuxBudget): string {
  return `auxiliary model budget used up (${spent.calls}/${budget.calls} calls, ${spent.tokens}/${budget.tokens} tokens): routing and state updates are deterministic for the rest of this session`;
}
