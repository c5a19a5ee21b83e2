import { runFiles } from "../formats/run-layout.js";
import { sessionId, type Condition, type SessionPair } from "../sessions/schema.js";
import type { RunInput, SessionInput, TaskTests } from "./read-run.js";
import {
  groupNames,
  type Attribution,
  type ByCondition,
  type ByGroup,
  type ConfigReport,
  type ErrorCounts,
  type GroupName,
  type GroupResult,
  type ProfileEntry,
  type SessionEntry,
  type UnresolvedReason,
  type UsageMeans,
  type Workload,
} from "./report-schema.js";
import { bootstrapGapCI, discordant, gapOf, mcnemarExact, ratio, summarize, type BootstrapOptions, type Pair } from "./stats.js";
import { addUsage, emptyUsage, type UsageTally as Usage } from "../formats/usage.js";
import { profileSteps } from "../sessions/stats.js";

const conditions: readonly Condition[] = ["base", "switch"];

export interface SessionOutcome {
  status: "resolved" | "unresolved";
  reason: UnresolvedReason | null;
  detail: string | null;
  finalized: boolean | null;
  attempts: number;
}

/** Why a session counts as resolved or not; the order of the checks is the order of docs/report-format.md. Pure. */
export function sessionOutcome(s: SessionInput | undefined): SessionOutcome {
  const t = s?.trajectory ?? null;
  const summary = s?.summary ?? null;
  const summaryAttempts = Array.isArray(summary?.attempts) ? summary.attempts.length : (summary?.attempts ?? 0);
  const attempts = Math.max(t?.attempts ?? 0, t?.last_attempt ?? 0, summaryAttempts);
  const finalized = t?.ended?.finalized ?? summary?.finalized ?? null;
  const out = (reason: UnresolvedReason | null, detail: string | null): SessionOutcome => ({
    status: reason === null ? "resolved" : "unresolved",
    reason,
    detail,
    finalized,
    attempts,
  });
  if (!s || (!t && !summary)) return out("not run", null);
  if (finalized !== true) {
    const status = t?.ended?.status ?? summary?.status ?? null;
    const reason = t?.ended?.reason ?? summary?.reason ?? null;
    // A failed session (infrastructure faults beyond the retries, or a harness failure) says nothing about
    // the agent; an interrupted one is a run that was stopped before the session ended.
    if ((t?.infra_faults_last ?? 0) > 0 || (status === "failed" && !reason?.startsWith("interrupted"))) {
      return out("infra fault", `run: ${reason ?? "infrastructure fault during the session"}`);
    }
    const why = reason ?? (t && !t.ended ? "the trajectory has no session_end (cut off or still running)" : null);
    return out("not finalized", why ?? (status === "finished" ? "the finalization request did not end with the agent yielding" : null));
  }
  const v = s.verdict;
  if (!v) return out("no verdict", s.verdictProblem);
  if (v.infra_fault) return out("infra fault", `verify: ${v.infra_reason ?? "infrastructure fault"}`);
  if (v.resolved) return out(null, null);
  if (!v.applied) return out("did not apply", v.apply_error ?? null);
  return out(
    "tests failed",
    `F2P ${v.fail_to_pass.passed}/${v.fail_to_pass.total}, P2P ${v.pass_to_pass.passed}/${v.pass_to_pass.total}`,
  );
}

/** Any attempt of the session hit an infrastructure fault (trajectory outcomes, its end, or session.json's attempts). */
export function hadRunInfraFault(s: SessionInput | undefined): boolean {
  const t = s?.trajectory;
  if (t && (t.infra_faults > 0 || t.ended?.reason?.startsWith("infra_fault"))) return true;
  const attempts = s?.summary?.attempts;
  return (
    Array.isArray(attempts) &&
    attempts.some((a) => typeof a === "object" && a !== null && (a as { status?: unknown }).status === "infra_fault")
  );
}

/** Stages (1-based) with at least one F2P test not passed; null when the task has no test-to-stage map. Pure. */
export function failedStages(tests: Record<string, string>, task: TaskTests | undefined): number[] | null {
  if (!task || task.f2pStage.size === 0) return null;
  const failed = new Set<number>();
  for (const [id, stage] of task.f2pStage) if (tests[id] !== "passed") failed.add(stage);
  return [...failed].sort((a, b) => a - b);
}

function emptyAttribution(): Attribution {
  return {
    unresolved: 0,
    attributed: 0,
    excluded: { not_scored: 0, infra_fault: 0, not_applied: 0, unmapped: 0 },
    earlier_stage_failure: 0,
    earlier_stage_share: null,
    last_stage_only: 0,
    p2p_only: 0,
    failed_stages: {},
  };
}

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

function stageSum(stages: ReadonlyMap<number, Usage>, which: Iterable<number>): Usage {
  const u = emptyUsage();
  for (const s of which) {
    const x = stages.get(s);
    if (x) addUsage(u, x);
  }
  return u;
}

function emptyErrors(): ErrorCounts {
  return {
    sessions: 0,
    not_run: 0,
    not_finalized: 0,
    no_verdict: 0,
    infra_fault_run: 0,
    restarts: 0,
    infra_fault_verify: 0,
    timeouts: 0,
    sessions_with_timeout: 0,
    continuations: 0,
    agent_errors: 0,
    not_applied: 0,
    invalid_trajectory_lines: 0,
    superseded_tokens: 0,
    superseded_cost_usd: null,
  };
}

function inGroup(pair: SessionPair, g: GroupName): boolean {
  return g === "overall" || pair.locality === g;
}

function groupResult(pairs: readonly Pair[], opts: BootstrapOptions): GroupResult {
  const { uninterrupted, switched, gap } = gapOf(pairs);
  const d = discordant(pairs);
  return {
    n: pairs.length,
    resolved: { uninterrupted: pairs.filter((p) => p[0]).length, switched: pairs.filter((p) => p[1]).length },
    uninterrupted,
    switched,
    gap,
    ci95: bootstrapGapCI(pairs, opts),
    mcnemar_p: pairs.length === 0 ? null : mcnemarExact(d.base_only, d.switch_only),
    discordant: d,
  };
}

/** Everything the report says about one configuration, from what readRun gathered. Pure. */
export function buildConfigReport(input: RunInput, opts: BootstrapOptions = {}): ConfigReport {
  const warnings = [...input.warnings];
  const entries: SessionEntry[] = [];
  const entryById = new Map<string, SessionEntry>();
  const usageById = new Map<string, { all: Usage; resumed: Usage }>();
  const errors: ByCondition<ErrorCounts> = { base: emptyErrors(), switch: emptyErrors() };
  const requestTexts: Record<string, Record<string, string>> = {};
  const unmappedTasks = new Set<string>();

  for (const pair of input.sessions.pairs) {
    for (const condition of conditions) {
      const id = sessionId(pair.id, condition);
      const data = input.sessionData.get(id);
      const outcome = sessionOutcome(data);
      const steps = pair.schedules[condition];
      const prof = profileSteps(steps, pair.focus);
      for (const step of steps) {
        if (step.kind === "stage") (requestTexts[step.task] ??= {})[String(step.stage)] = step.text;
      }
      const task = input.tasks?.get(pair.focus);
      const t = data?.trajectory ?? null;
      const v = data?.verdict ?? null;
      if (v && (v.session !== id || v.task !== pair.focus)) {
        warnings.push(`${runFiles.verdict(input.runDir, id)}: names session "${v.session}" and task "${v.task}"`);
      }
      let fs: number[] | null = null;
      if (v && outcome.reason === "tests failed") {
        fs = failedStages(v.tests, task);
        if (fs === null && input.tasks !== null) unmappedTasks.add(pair.focus);
      }
      let usage: SessionEntry["usage"] = null;
      if (t) {
        const resumed = stageSum(t.focus_stages, t.resumed_stages);
        usageById.set(id, { all: t.usage, resumed });
        usage = {
          tokens: t.usage.tokens,
          model_calls: t.usage.model_calls,
          tool_calls: t.usage.tool_calls,
          cost_usd: t.usage.cost_calls > 0 ? t.usage.cost_usd : null,
          auxiliary_tokens: t.usage.auxiliary_tokens,
          auxiliary_model_calls: t.usage.auxiliary_model_calls,
          resumed_focus_tokens: resumed.tokens,
        };
      }
      const entry: SessionEntry = {
        id,
        pair: pair.id,
        focus: pair.focus,
        condition,
        locality: pair.locality,
        status: outcome.status,
        reason: outcome.reason,
        detail: outcome.detail,
        attempts: outcome.attempts,
        finalized: outcome.finalized,
        requests: { scheduled: steps.length, delivered: t?.requests_delivered ?? 0 },
        workspace_switches: prof.workspace_switches,
        focus_returns: prof.focus_returns,
        timeouts: t?.timeouts ?? data?.summary?.timeouts ?? 0,
        continuations: t?.continuations ?? data?.summary?.continuations ?? 0,
        usage,
        verdict: v && {
          applied: v.applied,
          resolved: v.resolved,
          infra_fault: v.infra_fault,
          timed_out: v.timed_out,
          apply_method: v.apply_method,
          fail_to_pass: v.fail_to_pass,
          pass_to_pass: v.pass_to_pass,
          tests: Object.entries(v.tests).map(([testId, status]) => ({
            id: testId,
            kind: task ? (task.f2p.has(testId) || task.f2pStage.has(testId) ? "F2P" : task.p2p.has(testId) ? "P2P" : null) : null,
            stage: task?.f2pStage.get(testId) ?? null,
            status,
          })),
        },
        failed_stages: fs,
        workspaces: { ...pair.workspaces },
        schedule: steps.map((step, i) => ({
          task: step.task,
          role: step.task === pair.focus ? "focus" : "interruption",
          workspace: step.workspace,
          kind: step.kind,
          stage: step.kind === "stage" ? step.stage : null,
          focus_return: prof.returns[i] ?? false,
        })),
        files: {
          trajectory: t ? `sessions/${id}/trajectory.jsonl` : null,
          artifact: data?.hasArtifact ? `sessions/${id}/artifact.patch` : null,
        },
      };
      entries.push(entry);
      entryById.set(id, entry);

      const e = errors[condition];
      e.sessions++;
      if (outcome.reason === "not run") e.not_run++;
      if (outcome.reason === "not finalized") e.not_finalized++;
      if (outcome.reason === "no verdict") e.no_verdict++;
      if (hadRunInfraFault(data)) e.infra_fault_run++;
      e.restarts += Math.max(0, outcome.attempts - 1);
      if (v?.infra_fault) e.infra_fault_verify++;
      e.timeouts += entry.timeouts;
      if (entry.timeouts > 0) e.sessions_with_timeout++;
      e.continuations += entry.continuations;
      e.agent_errors += t?.agent_errors ?? 0;
      if (v && !v.applied && !v.infra_fault) e.not_applied++;
      e.invalid_trajectory_lines += t?.invalid_lines ?? 0;
      if (data) {
        e.superseded_tokens += data.superseded.tokens;
        if (data.superseded.cost_calls > 0) e.superseded_cost_usd = (e.superseded_cost_usd ?? 0) + (data.superseded.cost_usd ?? 0);
      }
    }
  }
  if (unmappedTasks.size > 0) {
    warnings.push(`no F2P test-to-stage map (requests[].tests) for ${unmappedTasks.size} task(s): ${[...unmappedTasks].slice(0, 5).join(", ")}`);
  }

  const groups = {} as ByGroup<GroupResult>;
  const attribution = {} as ByGroup<ByCondition<Attribution>>;
  const profile = {} as ByGroup<ByCondition<ProfileEntry>>;
  for (const g of groupNames) {
    const pairsInGroup = input.sessions.pairs.filter((p) => inGroup(p, g));
    groups[g] = groupResult(
      pairsInGroup.map((p) => [
        entryById.get(sessionId(p.id, "base"))!.status === "resolved",
        entryById.get(sessionId(p.id, "switch"))!.status === "resolved",
      ]),
      opts,
    );
    attribution[g] = { base: emptyAttribution(), switch: emptyAttribution() };
    profile[g] = {} as ByCondition<ProfileEntry>;
    for (const c of conditions) {
      const list = pairsInGroup.map((p) => entryById.get(sessionId(p.id, c))!);
      profile[g][c] = {
        sessions: list.length,
        requests: summarize(list.map((s) => s.requests.scheduled)),
        workspace_switches: summarize(list.map((s) => s.workspace_switches)),
        focus_returns: summarize(list.map((s) => s.focus_returns)),
      };
      const a = attribution[g][c];
      for (const s of list) {
        if (s.status === "resolved") continue;
        a.unresolved++;
        if (s.reason === "infra fault") a.excluded.infra_fault++;
        else if (s.reason === "did not apply") a.excluded.not_applied++;
        else if (s.reason !== "tests failed") a.excluded.not_scored++;
        else if (s.failed_stages === null) a.excluded.unmapped++;
        else {
          a.attributed++;
          const last = input.tasks?.get(s.focus)?.lastTestedStage ?? 0;
          for (const st of s.failed_stages) a.failed_stages[String(st)] = (a.failed_stages[String(st)] ?? 0) + 1;
          if (s.failed_stages.some((st) => st < last)) a.earlier_stage_failure++;
          else if (s.failed_stages.length > 0) a.last_stage_only++;
          else a.p2p_only++;
        }
      }
      a.earlier_stage_share = a.attributed === 0 ? null : (100 * a.earlier_stage_failure) / a.attributed;
    }
  }

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
  const workload: Workload = {
    uninterrupted,
    switched,
    resumed_focus: resumedFocus,
    resumed_focus_paired: { pairs: pairedSwitch.length, switched: pairedS, uninterrupted_same_stages: pairedB },
    ratios: {
      switched_over_uninterrupted: usageRatios(switched, uninterrupted),
      resumed_focus_over_uninterrupted_same_stages: usageRatios(pairedS, pairedB),
    },
  };

  const attributionAvailable = input.tasks !== null;
  return {
    label: input.label,
    run_dir: input.runDir,
    agent: { name: input.config.agent.name, options: input.config.agent.options ?? null },
    dataset: {
      name: input.config.dataset?.name ?? input.sessions.dataset.name,
      version: input.config.dataset?.version ?? input.sessions.dataset.version,
      path: input.datasetPath,
    },
    sessions_file: { path: input.sessionsPath, sha256: input.config.sessions_file?.sha256 ?? null, pairs: input.sessions.pairs.length },
    groups,
    stage_attribution: {
      available: attributionAvailable,
      note: attributionAvailable ? null : input.datasetNote,
      groups: attribution,
    },
    workload,
    profile,
    errors,
    sessions: entries,
    request_texts: requestTexts,
    warnings,
  };
}
