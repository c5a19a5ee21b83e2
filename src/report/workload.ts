import { addUsage, emptyUsage, type UsageTally as Usage } from "../formats/usage.js";
import { sessionId, type Condition } from "../formats/sessions.js";
import type { RunInput } from "./read-run.js";
import type { UsageMeans, Workload } from "./report-schema.js";
import { ratio } from "./stats.js";

function usageMeans(list: readonly Usage[]): UsageMeans {
  const total = list.reduce((acc, u) => addUsage(acc, u), emptyUsage());
  const n = list.length;
  const mean = (x: number) => (n === 0 ? null : x / n);
  return {
    sessions: n,
    tokens: mean(total.tokens),
    model_calls: mean(total.model_calls),
    tool_calls: mean(total.tool_calls),
    cost_usd: total.cost_calls > 0 ? mean(total.cost_usd ?? 0) : null,
    cost_coverage: total.model_calls > 0 ? total.cost_calls / total.model_calls : null,
    auxiliary_tokens: mean(total.auxiliary_tokens),
    auxiliary_model_calls: mean(total.auxiliary_model_calls),
  };
}

function usageRatios(a: UsageMeans, b: UsageMeans) {
  return {
    tokens: ratio(a.tokens, b.tokens),
    model_calls: ratio(a.model_calls, b.model_calls),
    tool_calls: ratio(a.tool_calls, b.tool_calls),
    cost_usd: ratio(a.cost_usd, b.cost_usd),
  };
}

export function stageSum(stages: ReadonlyMap<number, Usage>, which: Iterable<number>): Usage {
  const u = emptyUsage();
  for (const s of which) {
    const x = stages.get(s);
    if (x) addUsage(u, x);
  }
  return u;
}

/** Per-session usage, all of it and the resumed focus stages only (switched sessions). */
export type SessionUsage = Map<string, { all: Usage; resumed: Usage }>;

/** The workload section: mean usage per condition, resumed focus stages, and their paired ratios. Pure. */
export function buildWorkload(input: RunInput, usageById: SessionUsage): Workload {
  const ran = (c: Condition) =>
    input.sessions.pairs.map((p) => usageById.get(sessionId(p.id, c))).filter((u) => u !== undefined);
  const uninterrupted = usageMeans(ran("base").map((u) => u.all));
  const switched = usageMeans(ran("switch").map((u) => u.all));
  const resumedFocus = usageMeans(ran("switch").map((u) => u.resumed));
  const pairedSwitch: Usage[] = [];
  const pairedBase: Usage[] = [];
  for (const p of input.sessions.pairs) {
    const b = input.sessionData.get(sessionId(p.id, "base"))?.trajectory;
    const s = input.sessionData.get(sessionId(p.id, "switch"))?.trajectory;
    if (!b || !s) continue;
    pairedSwitch.push(stageSum(s.focus_stages, s.resumed_stages));
    pairedBase.push(stageSum(b.focus_stages, s.resumed_stages));
  }
  const pairedS = usageMeans(pairedSwitch);
  const pairedB = usageMeans(pairedBase);
  return {
    uninterrupted,
    switched,
    resumed_focus: resumedFocus,
    resumed_focus_paired: { pairs: pairedSwitch.length, switched: pairedS, uninterrupted_same_stages: pairedB },
    ratios: {
      switched_over_uninterrupted: usageRatios(switched, uninterrupted),
      resumed_focus_over_uninterrupted_same_stages: usageRatios(pairedS, pairedB),
    },
  };
}
