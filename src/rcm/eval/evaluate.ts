import { existsSync, readdirSync } from "node:fs";
import { countTokens } from "gpt-tokenizer";
import { inputError } from "../../core/errors.js";
import { runFiles } from "../../formats/run-layout.js";
import { readTrajectory } from "../../formats/trajectory-file.js";
import { missingRequests, renderAssembly, type RenderedMessage } from "../assembly.js";
import { RcmEngine } from "../engine.js";
import type { Group } from "../history.js";
import { parseRcmOptions } from "../options.js";
import { replaySession, type ReplaySession } from "./replay.js";

export interface EvalOptions {
  mode: "router" | "rcm";
  threshold?: number;
  /** Ablation: remove the `Workspace:` line from every request, so routing relies on files, symbols and text. */
  hideWorkspace?: boolean;
}

export interface SessionEval {
  session: string;
  requests: number;
  routed_correctly: number;
  abstained: number;
  resumed_focus_steps: number;
  full_tokens: number;
  rcm_tokens: number;
  invariant_violations: number;
}

export interface EvalReport {
  mode: "router" | "rcm";
  threshold: number;
  /** False in the ablation that hides the `Workspace:` lines from the router. */
  workspace_lines: boolean;
  tokenizer: string;
  sessions: number;
  requests: number;
  /** Requests whose task the router got right, with confidence at or above the threshold. */
  routing_accuracy: number;
  /** Requests below the threshold (the full history was kept). */
  abstained: number;
  resumed_focus_steps: number;
  full_tokens: number;
  rcm_tokens: number;
  /** RCM context tokens / full-history tokens, over resumed focus steps. */
  context_ratio: number;
  /** Requests of the active task missing from what the model would receive, over all steps. */
  invariant_violations: number;
  step_ms: { mean: number; p95: number; max: number };
  per_session: SessionEval[];
}

export const evalTokenizer = "gpt-tokenizer o200k_base";

export function tokensOf(messages: readonly RenderedMessage[]): number {
  return messages.reduce((n, m) => n + countTokens(m.text), 0);
}

/** Replays every switched session of a run directory through RCM (no model calls) and measures it. */
export function evaluateRun(runDir: string, opts: EvalOptions): EvalReport {
  const sessionsDir = runFiles.sessionDir(runDir, "");
  if (!existsSync(sessionsDir)) throw inputError(runDir, "", "not a run directory (no sessions/)");
  const sessions: ReplaySession[] = [];
  for (const name of readdirSync(sessionsDir).sort()) {
    const file = runFiles.trajectory(runDir, name);
    if (!existsSync(file)) continue;
    let lines;
    try {
      lines = readTrajectory(file);
    } catch (e) {
      throw inputError(file, "", (e as Error).message.replace(`${file}: `, ""));
    }
    const s = replaySession(lines);
    if (s && s.condition === "switch") sessions.push(s);
  }
  if (sessions.length === 0) throw inputError(runDir, "", "no switched session with a trajectory");
  return evaluateSessions(sessions, opts);
}

export function evaluateSessions(sessions: readonly ReplaySession[], opts: EvalOptions): EvalReport {
  const options = parseRcmOptions({ mode: opts.mode, ...(opts.threshold !== undefined ? { threshold: opts.threshold } : {}) });
  const per: SessionEval[] = [];
  const times: number[] = [];
  for (const s of sessions) per.push(evaluateSession(opts.hideWorkspace ? withoutWorkspace(s) : s, options, times));
  const sum = (k: keyof Omit<SessionEval, "session">) => per.reduce((n, p) => n + p[k], 0);
  const requests = sum("requests");
  const full = sum("full_tokens");
  const rcm = sum("rcm_tokens");
  const sorted = [...times].sort((a, b) => a - b);
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    mode: opts.mode,
    threshold: options.threshold,
    workspace_lines: !opts.hideWorkspace,
    tokenizer: evalTokenizer,
    sessions: per.length,
    requests,
    routing_accuracy: requests === 0 ? 0 : r3(sum("routed_correctly") / requests),
    abstained: sum("abstained"),
    resumed_focus_steps: sum("resumed_focus_steps"),
    full_tokens: full,
    rcm_tokens: rcm,
    context_ratio: full === 0 ? 0 : r3(rcm / full),
    invariant_violations: sum("invariant_violations"),
    step_ms: {
      mean: r3(times.reduce((a, b) => a + b, 0) / Math.max(1, times.length)),
      p95: r3(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0),
      max: r3(sorted[sorted.length - 1] ?? 0),
    },
    per_session: per,
  };
}

function evaluateSession(s: ReplaySession, options: ReturnType<typeof parseRcmOptions>, times: number[]): SessionEval {
  const engine = new RcmEngine(options);
  const groups: Group[] = [];
  const out: SessionEval = { session: s.session, requests: 0, routed_correctly: 0, abstained: 0, resumed_focus_steps: 0, full_tokens: 0, rcm_tokens: 0, invariant_violations: 0 };
  const predicted: (string | null)[] = [];
  s.steps.forEach((step, i) => {
    groups.push(step.group);
    const t0 = performance.now();
    const plan = engine.prepare(groups);
    const rendered = renderAssembly(groups, plan);
    times.push(performance.now() - t0);
    const a = engine.memory.router.assignments[step.group.id]!;
    predicted.push(a.task);
    out.requests++;
    if (a.confidence < options.threshold) out.abstained++;
    else if (consistent(predicted, s.steps.map((x) => x.task), i)) out.routed_correctly++;
    const activeRequests = s.steps.slice(0, i + 1).filter((x) => x.task === step.task).map((x) => x.group.userText);
    out.invariant_violations += missingRequests(rendered, activeRequests).length;
    if (step.role === "focus" && step.focusReturn && !step.continuation) {
      out.resumed_focus_steps++;
      out.full_tokens += tokensOf(renderAssembly(groups, null));
      out.rcm_tokens += tokensOf(rendered);
    }
    step.group.actions.push(...step.actions);
  });
  return out;
}

/** Request i is routed right when it shares a task with exactly the earlier requests of its true task. */
function consistent(predicted: readonly (string | null)[], truth: readonly string[], i: number): boolean {
  if (predicted[i] === null) return false;
  for (let j = 0; j < i; j++) {
    if ((predicted[j] === predicted[i]) !== (truth[j] === truth[i])) return false;
  }
  return true;
}

function withoutWorkspace(s: ReplaySession): ReplaySession {
  return { ...s, steps: s.steps.map((st) => ({ ...st, group: { ...st.group, userText: st.group.userText.replace(/^Workspace:.*\n/m, "") } })) };
}
