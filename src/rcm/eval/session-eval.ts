import { createRequire } from "node:module";
import type { countTokens as gptCountTokens } from "gpt-tokenizer";
import { missingRequests, renderAssembly, type RenderedMessage } from "../assembly.js";
import { RcmEngine } from "../engine.js";
import type { Group } from "../history.js";
import type { RcmOptions } from "../options.js";
import type { ReplaySession } from "./replay.js";

export const evalTokenizer = "gpt-tokenizer o200k_base";

type CountTokens = typeof gptCountTokens;
let countTokens: CountTokens | undefined;

/**
 * The tokenizer, loaded on first use: its encoding takes about a fifth of a second of CPU to load, which
 * every CLI command paid at start-up when it was imported statically, though only `rcm eval` counts tokens.
 */
function tokenizer(): CountTokens {
  countTokens ??= (createRequire(import.meta.url)("gpt-tokenizer") as { countTokens: CountTokens }).countTokens;
  return countTokens;
}

export function tokensOf(messages: readonly RenderedMessage[]): number {
  const count = tokenizer();
  return messages.reduce((n, m) => n + count(m.text), 0);
}

/** Routing outcomes of one way of deciding (`refs`, `similarity`, `closing`, …). */
export interface MethodCount {
  requests: number;
  correct: number;
}

export interface SessionEval {
  session: string;
  requests: number;
  routed_correctly: number;
  abstained: number;
  resumed_focus_steps: number;
  full_tokens: number;
  rcm_tokens: number;
  /** Resumed focus steps whose stage the uninterrupted session of the same focus task also reached. */
  matched_steps: number;
  /** RCM context tokens at those steps. */
  matched_rcm_tokens: number;
  /** The uninterrupted session's context tokens at the same focus stages. */
  uninterrupted_tokens: number;
  invariant_violations: number;
  methods: Record<string, MethodCount>;
}

/** Context tokens of an uninterrupted session at each focus stage (its whole history up to that request). */
export function uninterruptedContext(base: ReplaySession): Map<number, number> {
  const out = new Map<number, number>();
  const groups: Group[] = [];
  for (const step of base.steps) {
    groups.push({ ...step.group, actions: [] });
    if (step.stage !== null && !step.continuation && !out.has(step.stage)) out.set(step.stage, tokensOf(renderAssembly(groups, null)));
    groups[groups.length - 1]!.actions.push(...step.actions);
  }
  return out;
}

/**
 * Request i is routed right when it shares a task with exactly the earlier requests of its true task.
 * Earlier requests the router deferred (`deferred[j]`) are left out: online the auxiliary model places
 * them, so the router's own guess for them says nothing about request i.
 */
export function consistent(
  predicted: readonly (string | null)[],
  truth: readonly string[],
  i: number,
  deferred: readonly boolean[] = [],
): boolean {
  if (predicted[i] === null) return false;
  for (let j = 0; j < i; j++) {
    if (deferred[j]) continue;
    if ((predicted[j] === predicted[i]) !== (truth[j] === truth[i])) return false;
  }
  return true;
}

/**
 * Replays one switched session step by step, as a host would show it to RCM: each request is the
 * current group when it is routed and assembled, and its actions are added once the step is measured.
 */
export function evaluateSession(
  s: ReplaySession,
  options: RcmOptions,
  times: number[],
  uninterrupted: Map<number, number> | null,
): SessionEval {
  const engine = new RcmEngine(options);
  const groups: Group[] = [];
  const out: SessionEval = {
    session: s.session,
    requests: 0,
    routed_correctly: 0,
    abstained: 0,
    resumed_focus_steps: 0,
    full_tokens: 0,
    rcm_tokens: 0,
    matched_steps: 0,
    matched_rcm_tokens: 0,
    uninterrupted_tokens: 0,
    invariant_violations: 0,
    methods: {},
  };
  const predicted: (string | null)[] = [];
  const deferred: boolean[] = [];
  const truth = s.steps.map((x) => x.task);
  s.steps.forEach((step, i) => {
    const group: Group = { ...step.group, actions: [] };
    groups.push(group);
    const t0 = performance.now();
    const plan = engine.prepare(groups);
    const rendered = renderAssembly(groups, plan);
    times.push(performance.now() - t0);
    const a = engine.memory.router.assignments[group.id]!;
    predicted.push(a.task);
    deferred.push(a.confidence < options.threshold);
    out.requests++;
    const ok = a.confidence >= options.threshold && consistent(predicted, truth, i, deferred);
    if (a.confidence < options.threshold) out.abstained++;
    else if (ok) out.routed_correctly++;
    const m = (out.methods[a.method] ??= { requests: 0, correct: 0 });
    m.requests++;
    if (ok) m.correct++;
    const activeRequests = s.steps
      .slice(0, i + 1)
      .filter((x) => x.task === step.task)
      .map((x) => x.group.userText);
    out.invariant_violations += missingRequests(rendered, activeRequests).length;
    if (step.role === "focus" && step.focusReturn && !step.continuation) {
      const tokens = tokensOf(rendered);
      out.resumed_focus_steps++;
      out.full_tokens += tokensOf(renderAssembly(groups, null));
      out.rcm_tokens += tokens;
      const base = step.stage === null ? undefined : uninterrupted?.get(step.stage);
      if (base !== undefined) {
        out.matched_steps++;
        out.matched_rcm_tokens += tokens;
        out.uninterrupted_tokens += base;
      }
    }
    group.actions.push(...step.actions);
  });
  return out;
}
