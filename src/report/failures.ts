import { sessionId, type Condition } from "../formats/sessions.js";
import type { RunInput } from "./read-run.js";
import {
  groupNames,
  signatureNames,
  type ByCondition,
  type ByGroup,
  type FailureCounts,
  type SessionEntry,
  type SignatureTotals,
} from "./report-schema.js";

function failureCounts(list: readonly SessionEntry[]): FailureCounts {
  const f: FailureCounts = { sessions: list.length, resolved: 0, implementation: 0, submission: 0, incomplete_execution: 0, not_scored: 0 };
  for (const s of list) {
    if (s.status === "resolved") f.resolved++;
    else if (s.failure_category === null) f.not_scored++;
    else f[s.failure_category]++;
  }
  return f;
}

/** Sums one condition's session signatures: sessions checked, sessions showing it, and its events. */
function signatureTotals(list: readonly SessionEntry[]): SignatureTotals {
  const out = {} as SignatureTotals;
  for (const name of signatureNames) {
    let available = 0;
    let sessions = 0;
    let count = 0;
    for (const s of list) {
      const v = s.signatures[name];
      if (v === null) continue;
      available++;
      const n = typeof v === "boolean" ? Number(v) : v;
      if (n > 0) sessions++;
      count += n;
    }
    out[name] = available === 0 ? { available, sessions: null, count: null } : { available, sessions, count };
  }
  return out;
}

export interface FailureSections {
  failure_categories: ByGroup<ByCondition<FailureCounts>>;
  signatures: ByCondition<SignatureTotals>;
}

/** Failure categories per group and condition, and the signatures per condition. Pure. */
export function buildFailureSections(input: RunInput, entryById: ReadonlyMap<string, SessionEntry>): FailureSections {
  const failure_categories = {} as ByGroup<ByCondition<FailureCounts>>;
  const list = (c: Condition, g: string) =>
    input.sessions.pairs.filter((p) => g === "overall" || p.locality === g).map((p) => entryById.get(sessionId(p.id, c))!);
  for (const g of groupNames) failure_categories[g] = { base: failureCounts(list("base", g)), switch: failureCounts(list("switch", g)) };
  const signatures = { base: signatureTotals(list("base", "overall")), switch: signatureTotals(list("switch", "overall")) };
  return { failure_categories, signatures };
}
