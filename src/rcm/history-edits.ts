import type { AssemblyPlan } from "./assembly.js";
import type { Group } from "./history.js";

/**
 * Where each group lives in a host's flat message list (OpenCode messages, or the messages, items or
 * contents of a model request): the index of the request that starts it and the indexes of what
 * answered it. Entries outside every span (a system prompt, a compaction summary) are never touched.
 */
export interface GroupSpan {
  user: number;
  rest: number[];
}

export interface HistoryView {
  groups: Group[];
  spans: GroupSpan[];
}

/** What a plan does to a flat message list, by index: entries removed, entries replaced by the elided note, and where the record goes. */
export interface HistoryEdits {
  remove: Set<number>;
  /** Entries that become the one note standing for their group's exchanges. */
  notes: number[];
  /** The current request's entry, which gets the state record in front of its text. */
  record: { at: number; text: string } | null;
}

/**
 * The one translation of a plan into list edits, for every host: a dropped group loses all its
 * entries; an elided group keeps its request and its first exchange entry (which becomes the note) and
 * loses its other exchange entries; the record goes to the current request. `isExchange` says which
 * entries of a span are the assistant's work (and the tool results that answer it): others (a host's
 * own context) stay in an elided group.
 */
export function planEdits(view: HistoryView, plan: AssemblyPlan, isExchange: (index: number) => boolean): HistoryEdits {
  const edits: HistoryEdits = { remove: new Set(), notes: [], record: null };
  if (!plan.filtered) return edits;
  plan.treatments.forEach((t, gi) => {
    const span = view.spans[gi];
    if (!span) return;
    if (t === "dropped") {
      edits.remove.add(span.user);
      for (const i of span.rest) edits.remove.add(i);
    } else if (t === "elided") {
      const exchanges = span.rest.filter(isExchange);
      if (exchanges.length === 0) return;
      edits.notes.push(exchanges[0]!);
      for (const i of exchanges.slice(1)) edits.remove.add(i);
    }
  });
  const current = view.spans[view.spans.length - 1];
  if (plan.record && current) edits.record = { at: current.user, text: plan.record };
  return edits;
}

/** A new list with the edits made: `note` turns an entry into the elided note, `withRecord` puts the record in front of the request. */
export function applyEdits<T>(
  list: readonly T[],
  edits: HistoryEdits,
  note: (entry: T, index: number) => T,
  withRecord: (entry: T, record: string) => T,
): T[] {
  const notes = new Set(edits.notes);
  const out: T[] = [];
  list.forEach((entry, i) => {
    if (edits.remove.has(i)) return;
    if (notes.has(i)) out.push(note(entry, i));
    else if (edits.record?.at === i) out.push(withRecord(entry, edits.record.text));
    else out.push(entry);
  });
  return out;
}

/** What one model step saw, for logs and the state file: the plan in numbers. */
export interface StepSummary {
  group: string;
  active: string | null;
  confidence: number;
  filtered: boolean;
  dropped: number;
  elided: number;
  record_chars: number;
}

export function stepSummary(groups: readonly Group[], plan: AssemblyPlan, edits: HistoryEdits): StepSummary {
  return {
    group: groups[groups.length - 1]?.id ?? "",
    active: plan.active,
    confidence: plan.confidence,
    filtered: plan.filtered,
    dropped: plan.treatments.filter((t) => t === "dropped").length,
    elided: edits.notes.length,
    record_chars: plan.record?.length ?? 0,
  };
}
