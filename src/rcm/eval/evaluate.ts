import { assertRunDir } from "../../formats/run-dir-check.js";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { sha256 } from "../../core/digest.js";
import { inputError } from "../../core/errors.js";
import { recordedPath, runConfigReadSchema } from "../../formats/run-config.js";
import { runFiles } from "../../formats/run-layout.js";
import { sessionsFileSchema } from "../../formats/sessions.js";
import { readTrajectory } from "../../formats/trajectory-file.js";
import { parseRcmOptions, type RcmOptions } from "../options.js";
import { replaySession, type ReplaySession } from "./replay.js";
import { evalTokenizer, evaluateSession, uninterruptedContext, type MethodCount, type SessionEval } from "./session-eval.js";

export type WorkspaceLines = "shown" | "hidden";

export interface EvalOptions {
  mode: "router" | "rcm";
  threshold?: number;
  /** Which variants to measure: with the harness's `Workspace:` lines, without them (routing by what the conversation shows), or both. */
  workspaceLines?: readonly WorkspaceLines[];
}

/** The figures of one variant (workspace lines shown or hidden). */
export interface EvalVariant {
  workspace_lines: boolean;
  /**
   * Of the requests the router decided (confidence at or above the threshold), the share it got right.
   * Deferred requests are not in it: online the auxiliary model decides them, and they are reported apart.
   */
  routing_accuracy: number;
  routed_correctly: number;
  /** Requests the router decided itself (at or above the threshold). */
  decided: number;
  /** Requests below the threshold: deferred to the auxiliary model online; offline the full history is kept. */
  deferred: number;
  /** deferred / requests. */
  deferred_share: number;
  /** Routed right over every request, deferred ones counted as not routed (the figure before deferral was reported apart). */
  accuracy_all_requests: number;
  /** The same as `deferred` (the name of earlier reports). */
  abstained: number;
  /** Requests and correct ones per routing method. */
  methods: Record<string, MethodCount>;
  full_tokens: number;
  rcm_tokens: number;
  /** RCM context tokens / full-history tokens, over resumed focus steps. */
  context_ratio: number;
  /** Resumed focus steps with an uninterrupted counterpart at the same focus stage. */
  uninterrupted_steps: number;
  /** RCM context tokens / the uninterrupted session's context tokens at the same focus stages (1.0: the physical limit). */
  uninterrupted_ratio: number | null;
  /** Requests of the active task missing from what the model would receive, over all steps. */
  invariant_violations: number;
  step_ms: { mean: number; p95: number; max: number };
  /**
   * Accuracy of the sessions in which no two tasks share a source file, and of those in which two do
   * (interruptions of one focus may: locality is relative to the focus). Without the Workspace: lines,
   * a request of one such task names the module of the other: only its meaning tells them apart.
   * Null when the run's sessions file is gone or changed.
   */
  shared_files: { apart: SessionGroup; sharing: SessionGroup } | null;
  per_session: SessionEval[];
}

export interface SessionGroup {
  sessions: number;
  requests: number;
  routed_correctly: number;
  /** Of the requests decided (not deferred). */
  routing_accuracy: number;
  deferred: number;
}

export interface EvalReport {
  mode: "router" | "rcm";
  threshold: number;
  tokenizer: string;
  sessions: number;
  /** Uninterrupted (base) sessions of the same focus tasks found in the run. */
  uninterrupted_sessions: number;
  requests: number;
  resumed_focus_steps: number;
  /** Sessions of the run without a finished trajectory (running, interrupted, failed): left out. */
  unfinished_sessions: string[];
  variants: EvalVariant[];
}

/**
 * Every session of a run directory with a readable trajectory, as replay sessions (a handoff case
 * needs only the requests up to its focus return), and the names of those whose trajectory did not
 * end (`session_end`: still running, interrupted, failed), which `rcm eval` leaves out: a session cut
 * short would count only its early requests, so figures of a run that is not done would look like a
 * finished run's.
 */
export function readRunSessions(runDir: string): { sessions: ReplaySession[]; unfinished: string[] } {
  const sessionsDir = runFiles.sessionDir(runDir, "");
  assertRunDir(runDir, { sessions: true });
  const sessions: ReplaySession[] = [];
  const unfinished: string[] = [];
  for (const name of readdirSync(sessionsDir).sort()) {
    const file = runFiles.trajectory(runDir, name);
    if (!existsSync(file)) {
      unfinished.push(name);
      continue;
    }
    let lines;
    try {
      lines = readTrajectory(file);
    } catch (e) {
      throw inputError(file, "", (e as Error).message.replace(`${file}: `, ""));
    }
    if (!lines.some((l) => l.type === "session_end")) unfinished.push(name);
    const s = replaySession(lines);
    if (s) sessions.push(s);
  }
  return { sessions, unfinished };
}

/** Replays every switched session of a run directory through RCM (no model calls) and measures it. */
export function evaluateRun(runDir: string, opts: EvalOptions): EvalReport {
  const { sessions, unfinished } = readRunSessions(runDir);
  const all = sessions.filter((s) => !unfinished.includes(s.session));
  const switched = all.filter((s) => s.condition === "switch");
  if (switched.length === 0) throw inputError(runDir, "", "no finished switched session");
  return {
    ...evaluateSessions(
      switched,
      all.filter((s) => s.condition === "base"),
      opts,
      pairsSharingFiles(runDir),
    ),
    unfinished_sessions: unfinished,
  };
}

/** The repository a run's rows are filed under: its dataset's name (run.json `dataset.name`), else the run directory's name. */
export function runRepository(runDir: string): string {
  try {
    const config = runConfigReadSchema.safeParse(JSON.parse(readFileSync(runFiles.config(runDir), "utf8")));
    if (config.success && config.data.dataset?.name) return config.data.dataset.name;
  } catch {
    // evaluateRun has read the run already; a name is all that is missing.
  }
  return basename(resolve(runDir));
}

/** Pairs of the run's sessions file in which two tasks share a source file; null when that file is gone or changed since the run. */
function pairsSharingFiles(runDir: string): Set<string> | null {
  try {
    const recorded = (JSON.parse(readFileSync(runFiles.config(runDir), "utf8")) as { sessions_file?: { path: string; sha256: string } })
      .sessions_file;
    if (!recorded) return null;
    const raw = readFileSync(recordedPath(runDir, recorded.path));
    if (sha256(raw) !== recorded.sha256) return null;
    const parsed = sessionsFileSchema.safeParse(JSON.parse(raw.toString("utf8")));
    if (!parsed.success) return null;
    return new Set(
      parsed.data.pairs
        .filter((p) => {
          const files = Object.values(p.source_files).flat();
          return new Set(files).size < files.length;
        })
        .map((p) => p.id),
    );
  } catch {
    return null;
  }
}

export function evaluateSessions(
  switched: readonly ReplaySession[],
  base: readonly ReplaySession[],
  opts: EvalOptions,
  sharing: ReadonlySet<string> | null = null,
): EvalReport {
  const options = parseRcmOptions({ mode: opts.mode, ...(opts.threshold !== undefined ? { threshold: opts.threshold } : {}) });
  const basePairs = new Set(base.map((b) => b.pair));
  const variants = (opts.workspaceLines ?? ["shown", "hidden"]).map((w) =>
    evaluateVariant(switched, base, options, w === "shown", sharing),
  );
  const first = variants[0]!.per_session;
  return {
    mode: opts.mode,
    threshold: options.threshold,
    tokenizer: evalTokenizer,
    sessions: switched.length,
    uninterrupted_sessions: switched.filter((s) => basePairs.has(s.pair)).length,
    requests: first.reduce((n, p) => n + p.requests, 0),
    resumed_focus_steps: first.reduce((n, p) => n + p.resumed_focus_steps, 0),
    unfinished_sessions: [],
    variants,
  };
}

/** Share of a count, 0 of nothing. */
export function share(n: number, of: number): number {
  return of === 0 ? 0 : r3(n / of);
}

function group(per: readonly SessionEval[]): SessionGroup {
  const requests = per.reduce((n, p) => n + p.requests, 0);
  const routed = per.reduce((n, p) => n + p.routed_correctly, 0);
  const deferred = per.reduce((n, p) => n + p.abstained, 0);
  return { sessions: per.length, requests, routed_correctly: routed, routing_accuracy: share(routed, requests - deferred), deferred };
}

function evaluateVariant(
  switched: readonly ReplaySession[],
  base: readonly ReplaySession[],
  options: RcmOptions,
  shown: boolean,
  sharing: ReadonlySet<string> | null,
): EvalVariant {
  const view = (s: ReplaySession) => (shown ? s : withoutWorkspace(s));
  const baseContext = new Map(base.map((b) => [b.pair, uninterruptedContext(view(b))]));
  const times: number[] = [];
  const per = switched.map((s) => evaluateSession(view(s), options, times, baseContext.get(s.pair) ?? null));
  const sum = (k: keyof Omit<SessionEval, "session" | "methods">) => per.reduce((n, p) => n + p[k], 0);
  const methods: Record<string, MethodCount> = {};
  for (const p of per) {
    for (const [m, c] of Object.entries(p.methods)) {
      const t = (methods[m] ??= { requests: 0, correct: 0 });
      t.requests += c.requests;
      t.correct += c.correct;
    }
  }
  const requests = sum("requests");
  const deferred = sum("abstained");
  const sorted = [...times].sort((a, b) => a - b);
  const uninterrupted = sum("uninterrupted_tokens");
  return {
    workspace_lines: shown,
    routing_accuracy: share(sum("routed_correctly"), requests - deferred),
    routed_correctly: sum("routed_correctly"),
    decided: requests - deferred,
    deferred,
    deferred_share: share(deferred, requests),
    accuracy_all_requests: share(sum("routed_correctly"), requests),
    abstained: deferred,
    methods,
    full_tokens: sum("full_tokens"),
    rcm_tokens: sum("rcm_tokens"),
    context_ratio: sum("full_tokens") === 0 ? 0 : r3(sum("rcm_tokens") / sum("full_tokens")),
    uninterrupted_steps: sum("matched_steps"),
    uninterrupted_ratio: uninterrupted === 0 ? null : r3(sum("matched_rcm_tokens") / uninterrupted),
    invariant_violations: sum("invariant_violations"),
    step_ms: {
      mean: r3(times.reduce((a, b) => a + b, 0) / Math.max(1, times.length)),
      p95: r3(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0),
      max: r3(sorted[sorted.length - 1] ?? 0),
    },
    shared_files:
      sharing === null
        ? null
        : {
            apart: group(per.filter((_, i) => !sharing.has(switched[i]!.pair))),
            sharing: group(per.filter((_, i) => sharing.has(switched[i]!.pair))),
          },
    per_session: per,
  };
}

function r3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** The ablation: every `Workspace:` line removed, so routing relies on what the conversation shows. */
function withoutWorkspace(s: ReplaySession): ReplaySession {
  return {
    ...s,
    steps: s.steps.map((st) => ({ ...st, group: { ...st.group, userText: st.group.userText.replace(/^Workspace:.*\n/m, "") } })),
  };
}
