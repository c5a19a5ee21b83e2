import type { FileChange } from "../formats/trajectory.js";
import type { ScheduleStep, SessionPair } from "../formats/sessions.js";
import { contaminatedLines, type ContaminatedLine } from "./contamination.js";
import type { SessionInput, TaskTests } from "./read-run.js";
import type { FailureCategory, SessionSignatures } from "./report-schema.js";
import type { SessionOutcome } from "./session-outcome.js";
import type { RequestRecord, StateRecord } from "./trajectory-summary.js";

/**
 * The trajectory signatures of one session and its failure category (docs/report-format.md,
 * "Signatures"). Each is null when the run directory does not hold what it needs (unavailable, not zero).
 * Pure.
 */

const emptyBlob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

export interface SignatureInput {
  pair: SessionPair;
  steps: readonly ScheduleStep[];
  data: SessionInput | undefined;
  outcome: SessionOutcome;
  /** The dataset's tasks (null when the dataset could not be read). */
  tasks: ReadonlyMap<string, TaskTests> | null;
}

export interface Change extends FileChange {
  /** Position of the state line (order of recording). */
  seq: number;
  index: number;
  request: RequestRecord | undefined;
}

/** Every change of every state line with the request that made it, per workspace. */
export function changesByWorkspace(states: readonly StateRecord[], log: ReadonlyMap<number, RequestRecord>): Map<string, Change[]> {
  const out = new Map<string, Change[]>();
  states.forEach((st, seq) => {
    if (st.index === null) return;
    for (const [w, list] of Object.entries(st.changed)) {
      const mine = out.get(w) ?? [];
      for (const c of list ?? []) mine.push({ ...c, seq, index: st.index, request: log.get(st.index) });
      out.set(w, mine);
    }
  });
  return out;
}

function wrongWorkspaceEdits(
  states: readonly StateRecord[],
  steps: readonly ScheduleStep[],
  log: ReadonlyMap<number, RequestRecord>,
): number {
  let n = 0;
  for (const st of states) {
    if (st.index === null) continue;
    const own = log.get(st.index)?.workspace ?? steps[st.index]?.workspace;
    for (const [w, list] of Object.entries(st.changed)) if (w !== own && (list?.length ?? 0) > 0) n++;
  }
  return n;
}

/**
 * Changes of the focus workspace that return a file to the content it had before an earlier request changed
 * it; `undone` is that earlier request.
 */
export function reversions(focus: readonly Change[]): Array<Change & { undone: number }> {
  const before = new Map<string, Map<string | null, number>>();
  const out: Array<Change & { undone: number }> = [];
  for (const c of focus) {
    const seen = before.get(c.path) ?? new Map<string | null, number>();
    const at = seen.get(c.after);
    if (at !== undefined && at < c.index) out.push({ ...c, undone: at });
    if (!seen.has(c.before)) seen.set(c.before, c.index);
    before.set(c.path, seen);
  }
  return out;
}

function submissionEvidence(focusWs: string, byWs: ReadonlyMap<string, Change[]>, reverted: readonly Change[]): boolean {
  const focus = byWs.get(focusWs) ?? [];
  if (reverted.some((c) => c.request?.kind === "finalization")) return true;
  const elsewhere = new Map<string, number>();
  for (const [w, list] of byWs) {
    if (w === focusWs) continue;
    for (const c of list) if (c.after !== null && c.after !== emptyBlob && !elsewhere.has(c.after)) elsewhere.set(c.after, c.seq);
  }
  if (focus.some((c) => c.after !== null && (elsewhere.get(c.after) ?? Infinity) < c.seq)) return true;
  const last = new Map<string, Change>();
  for (const c of focus) last.set(c.path, c);
  return [...last.values()].some((c) => c.request?.role === "interruption");
}

/** Today's stage attribution, named: a focus stage before the last tested one has an F2P test not passing. */
function lostRequirement(data: SessionInput | undefined, task: TaskTests | undefined): boolean | null {
  const v = data?.verdict;
  if (!v || !v.applied || v.infra_fault || !task || task.f2pStage.size === 0) return null;
  for (const [id, stage] of task.f2pStage) if (stage < task.lastTestedStage && v.tests[id] !== "passed") return true;
  return false;
}

const stalled = (o: RequestRecord["outcome"] | undefined) => o === "timeout" || o === "agent_error";

function incompleteExecution(
  steps: readonly ScheduleStep[],
  focus: string,
  data: SessionInput | undefined,
  outcome: SessionOutcome,
): boolean | null {
  if (outcome.reason === "not run" || outcome.reason === "infra fault") return null;
  if (outcome.reason === "not finalized") return true;
  const log = data?.trajectory?.request_log;
  if (!log) return null;
  let lastStage = -1;
  let fin = -1;
  steps.forEach((s, i) => {
    if (s.task === focus && s.kind === "stage") lastStage = i;
    if (s.task === focus && s.kind === "finalization") fin = i;
  });
  return stalled(log.get(lastStage)?.outcome) || stalled(log.get(fin)?.outcome);
}

/** The artifact's contaminated lines, with the interruption task each came from (null: unavailable). */
export function contamination(inp: SignatureInput): Array<ContaminatedLine & { task: string }> | null {
  const artifact = inp.data?.artifact;
  const focus = inp.tasks?.get(inp.pair.focus);
  if (!artifact || !focus || !inp.tasks) return null;
  const tasks = Object.values(inp.pair.workspaces).filter((t) => t !== inp.pair.focus);
  const others = tasks.map((t) => inp.tasks!.get(t)?.material);
  if (others.some((m) => m === undefined)) return null;
  return contaminatedLines(artifact, focus.material, others as NonNullable<(typeof others)[number]>[]).map((c) => ({
    ...c,
    task: tasks[c.from]!,
  }));
}

export function sessionSignatures(inp: SignatureInput): SessionSignatures {
  const t = inp.data?.trajectory ?? null;
  const focusWs = Object.entries(inp.pair.workspaces).find(([, task]) => task === inp.pair.focus)?.[0];
  const haveStates = t !== null && t.states.length > 0 && focusWs !== undefined;
  const byWs = haveStates ? changesByWorkspace(t.states, t.request_log) : new Map<string, Change[]>();
  const reverted = haveStates ? reversions(byWs.get(focusWs!) ?? []) : [];
  return {
    wrong_workspace_edits: haveStates ? wrongWorkspaceEdits(t.states, inp.steps, t.request_log) : null,
    cross_task_contamination: contamination(inp)?.length ?? null,
    lost_requirement: lostRequirement(inp.data, inp.tasks?.get(inp.pair.focus)),
    reverted_work: haveStates ? new Set(reverted.filter((c) => c.request?.kind === "stage").map((c) => c.path)).size : null,
    incomplete_execution: incompleteExecution(inp.steps, inp.pair.focus, inp.data, inp.outcome),
    submission: haveStates ? submissionEvidence(focusWs!, byWs, reverted) : null,
  };
}

/**
 * The paper's split of an unresolved session; null for resolved sessions and for those never scored.
 * `measured` (a run with `--submission agent`): a submission failure is what the verdict says (no file, not
 * a patch, or a patch that does not apply), not the checkout-evidence proxy.
 */
export function failureCategory(outcome: SessionOutcome, sig: SessionSignatures, measured = false): FailureCategory | null {
  if (outcome.status === "resolved") return null;
  if (outcome.reason === "not run" || outcome.reason === "no verdict" || outcome.reason === "infra fault") return null;
  if (sig.incomplete_execution === true || outcome.reason === "not finalized") return "incomplete_execution";
  if (outcome.reason === "did not apply" || (!measured && sig.submission === true)) return "submission";
  return "implementation";
}
