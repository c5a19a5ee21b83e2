import type { TaskTests } from "./read-run.js";
import type {
  CatalogueEntry,
  ConfigReport,
  FarMinusNear,
  InterruptionReuse,
  ResolutionByContext,
  ResumedFocusTokenRatio,
  SessionEntry,
} from "./report-schema.js";
import { bootstrapMeanDifferenceCI, bootstrapRatioCI, gapContributions, percent, summarize, type BootstrapOptions } from "./stats.js";
import { pairsOf } from "./compare.js";

/**
 * The paper's remaining analyses (App. B/C/E, Tables 1–2), each a pure function of what the report already
 * holds about one configuration, so a report document can be completed from its own sessions (read-report.ts).
 */
export type AnalysisInput = Pick<ConfigReport, "groups" | "sessions" | "request_texts">;

/** gap(far) − gap(near) with a bootstrap CI that resamples far and near focus tasks apart. */
export function farMinusNear(c: AnalysisInput, opts: BootstrapOptions): FarMinusNear {
  const pairs = [...pairsOf(c).values()];
  const contributions = (locality: string) => gapContributions(pairs.filter((p) => p.locality === locality).map((p) => p.pair));
  const near = c.groups.near;
  const far = c.groups.far;
  return {
    near: { pairs: near.n, gap: near.gap },
    far: { pairs: far.n, gap: far.gap },
    difference: near.gap === null || far.gap === null ? null : far.gap - near.gap,
    ci95: bootstrapMeanDifferenceCI(contributions("far"), contributions("near"), opts),
  };
}

/** Over pairs where both sessions ran: mean resumed-focus tokens (switched) / mean tokens of the whole uninterrupted session. */
export function resumedFocusTokenRatio(c: AnalysisInput, opts: BootstrapOptions): ResumedFocusTokenRatio {
  const byPair = new Map<string, { base?: SessionEntry; switch?: SessionEntry }>();
  for (const s of c.sessions) (byPair.get(s.pair) ?? byPair.set(s.pair, {}).get(s.pair)!)[s.condition] = s;
  const pairs: Array<[number, number]> = [];
  for (const { base, switch: sw } of byPair.values()) {
    if (base?.usage && sw?.usage) pairs.push([sw.usage.resumed_focus_tokens, base.usage.tokens]);
  }
  const n = pairs.length;
  const resumed = pairs.reduce((a, [x]) => a + x, 0);
  const whole = pairs.reduce((a, [, y]) => a + y, 0);
  return {
    pairs: n,
    resumed_focus_tokens: n === 0 ? null : resumed / n,
    uninterrupted_tokens: n === 0 ? null : whole / n,
    ratio: whole === 0 ? null : resumed / whole,
    ci95: whole === 0 ? null : bootstrapRatioCI(pairs, opts),
  };
}

/** Bin edges of the focus context, in input tokens: a peer's observation puts successful trajectories mostly under 20k. */
export const contextBinEdges = [0, 20_000, 50_000, 100_000] as const;

/** Resolution per condition by the largest context the model was sent on the focus task (sessions that ran). */
export function resolutionByContext(c: AnalysisInput): ResolutionByContext {
  const bins = contextBinEdges.map((from, i) => ({
    from,
    to: contextBinEdges[i + 1] ?? null,
    base: { sessions: 0, resolved: 0, rate: null as number | null },
    switch: { sessions: 0, resolved: 0, rate: null as number | null },
  }));
  const unmeasured = { base: 0, switch: 0 };
  for (const s of c.sessions) {
    if (!s.usage) continue;
    const peak = s.usage.focus_context_tokens;
    if (peak === null) {
      unmeasured[s.condition]++;
      continue;
    }
    const bin = [...bins].reverse().find((b) => peak >= b.from)!;
    bin[s.condition].sessions++;
    if (s.status === "resolved") bin[s.condition].resolved++;
  }
  for (const b of bins) for (const k of ["base", "switch"] as const) b[k].rate = percent(b[k].resolved, b[k].sessions);
  return { bins, unmeasured };
}

/** How many switched sessions each interruption task serves in: reuse makes the sessions less independent. */
export function interruptionReuse(c: AnalysisInput): InterruptionReuse {
  const uses = new Map<string, number>();
  const focus = new Set(c.sessions.map((s) => s.focus));
  const switched = c.sessions.filter((s) => s.condition === "switch");
  let slots = 0;
  for (const s of switched) {
    for (const task of new Set(Object.values(s.workspaces))) {
      if (task === s.focus) continue;
      slots++;
      uses.set(task, (uses.get(task) ?? 0) + 1);
    }
  }
  const counts = [...uses.values()];
  const top = [...uses].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  return {
    switched_sessions: switched.length,
    slots,
    distinct_tasks: uses.size,
    also_focus: [...uses.keys()].filter((t) => focus.has(t)).length,
    uses: summarize(counts),
    most_used: top ? { task: top[0], sessions: top[1] } : null,
  };
}

/** The first sentence of a request, kept to 120 characters: enough to tell tasks apart in a table. */
export function objectiveOf(text: string): string {
  const line = text.trim().split(/\n/)[0]!.trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(line)?.[1] ?? line;
  return sentence.length <= 120 ? sentence : `${sentence.slice(0, 119).trimEnd()}…`;
}

/**
 * Each focus task (the paper's Appendix D): objective, stages, locality and verifier size. Verifier sizes
 * come from the dataset; without it, from a verdict of the task (which lists every F2P and P2P test).
 */
export function catalogue(
  c: AnalysisInput,
  repoOf: ReadonlyMap<string, string>,
  tasks: ReadonlyMap<string, TaskTests> | null,
): CatalogueEntry[] {
  const out: CatalogueEntry[] = [];
  const seen = new Set<string>();
  for (const s of c.sessions) {
    if (seen.has(s.focus)) continue;
    seen.add(s.focus);
    const t = tasks?.get(s.focus);
    const verdict = c.sessions.find((x) => x.focus === s.focus && x.verdict !== null)?.verdict ?? null;
    const testedFromVerdict = verdict
      ? new Set(verdict.tests.filter((x) => x.kind === "F2P" && x.stage !== null).map((x) => x.stage)).size
      : null;
    out.push({
      task: s.focus,
      repo: repoOf.get(s.focus) ?? null,
      locality: s.locality,
      objective: objectiveOf(c.request_texts[s.focus]?.["1"] ?? ""),
      stages: t?.stages ?? s.schedule.filter((x) => x.role === "focus" && x.kind === "stage").length,
      tested_stages: t ? new Set(t.f2pStage.values()).size : testedFromVerdict,
      f2p: t ? t.f2p.size : (verdict?.fail_to_pass.total ?? null),
      p2p: t ? t.p2p.size : (verdict?.pass_to_pass.total ?? null),
    });
  }
  return out;
}
