import { runFiles } from "../formats/run-layout.js";
import type { Verdict } from "../formats/verdict.js";
import { sessionId, type Condition, type SessionPair } from "../formats/sessions.js";
import { profileSteps } from "../sessions/stats.js";
import type { RunInput, SessionInput, TaskTests } from "./read-run.js";
import type { ByCondition, ErrorCounts, SessionEntry } from "./report-schema.js";
import { failedStages, hadRunInfraFault, sessionOutcome, type SessionOutcome } from "./session-outcome.js";
import { signatureMarks } from "./signature-marks.js";
import { failureCategory, sessionSignatures } from "./signatures.js";
import { stageSum, type SessionUsage } from "./workload.js";

const conditions: readonly Condition[] = ["base", "switch"];

export function emptyErrors(): ErrorCounts {
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

/** Adds one session to its condition's error counts. */
function countErrors(e: ErrorCounts, entry: SessionEntry, outcome: SessionOutcome, data: SessionInput | undefined): void {
  const t = data?.trajectory ?? null;
  const v = data?.verdict ?? null;
  e.sessions++;
  if (outcome.reason === "not run") e.not_run++;
  if (outcome.reason === "not finalized") e.not_finalized++;
  if (outcome.reason === "no verdict") e.no_verdict++;
  if (data?.verdict?.suspicious) e.suspicious = (e.suspicious ?? 0) + 1;
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

function verdictEntry(v: Verdict, task: TaskTests | undefined): NonNullable<SessionEntry["verdict"]> {
  return {
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
  };
}

/** One session's entry of the report (its outcome, schedule profile, usage, verdict, failed stages). Pure. */
function sessionEntry(
  id: string,
  pair: SessionPair,
  condition: Condition,
  data: SessionInput | undefined,
  outcome: SessionOutcome,
  fs: number[] | null,
  task: TaskTests | undefined,
  usageById: SessionUsage,
): Omit<SessionEntry, "signatures" | "signature_marks" | "failure_category"> {
  const steps = pair.schedules[condition];
  const prof = profileSteps(steps, pair.focus);
  const t = data?.trajectory ?? null;
  const v = data?.verdict ?? null;
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
      focus_context_tokens: t.focus_context_peak,
    };
  }
  return {
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
    verdict: v && verdictEntry(v, task),
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
}

export interface SessionSections {
  entries: SessionEntry[];
  entryById: Map<string, SessionEntry>;
  usageById: SessionUsage;
  errors: ByCondition<ErrorCounts>;
  requestTexts: Record<string, Record<string, string>>;
  warnings: string[];
}

/** The per-session sections of the report: entries, errors, request texts, and their warnings. Pure. */
export function buildSessionSections(input: RunInput): SessionSections {
  const out: SessionSections = {
    entries: [],
    entryById: new Map(),
    usageById: new Map(),
    errors: { base: emptyErrors(), switch: emptyErrors() },
    requestTexts: {},
    warnings: [],
  };
  const unmappedTasks = new Set<string>();
  for (const pair of input.sessions.pairs) {
    for (const condition of conditions) {
      const id = sessionId(pair.id, condition);
      const data = input.sessionData.get(id);
      const outcome = sessionOutcome(data);
      for (const step of pair.schedules[condition]) {
        if (step.kind === "stage") (out.requestTexts[step.task] ??= {})[String(step.stage)] = step.text;
      }
      const task = input.tasks?.get(pair.focus);
      const v = data?.verdict ?? null;
      if (v && (v.session !== id || v.task !== pair.focus)) {
        out.warnings.push(`${runFiles.verdict(input.runDir, id)}: names session "${v.session}" and task "${v.task}"`);
      }
      let fs: number[] | null = null;
      if (v && outcome.reason === "tests failed") {
        fs = failedStages(v.tests, task);
        if (fs === null && input.tasks !== null) unmappedTasks.add(pair.focus);
      }
      const signatures = sessionSignatures({ pair, steps: pair.schedules[condition], data, outcome, tasks: input.tasks });
      const signature_marks = signatureMarks({ pair, steps: pair.schedules[condition], data, outcome, tasks: input.tasks }, signatures);
      const entry: SessionEntry = {
        ...sessionEntry(id, pair, condition, data, outcome, fs, task, out.usageById),
        signatures,
        signature_marks,
        failure_category: failureCategory(outcome, signatures, input.config.submission === "agent"),
      };
      out.entries.push(entry);
      out.entryById.set(id, entry);
      countErrors(out.errors[condition], entry, outcome, data);
    }
  }
  if (unmappedTasks.size > 0) {
    out.warnings.push(
      `no F2P test-to-stage map (requests[].tests) for ${unmappedTasks.size} task(s): ${[...unmappedTasks].slice(0, 5).join(", ")}`,
    );
  }
  return out;
}
