import { randomInt, sample, shuffled, type Random } from "../core/random.js";
import { wantedFocusReturns, type FocusReturnsRule, type ScheduleStep, type WorkspaceName } from "../formats/sessions.js";

export interface ScheduledTask {
  id: string;
  /** Request texts, stage 1..n. */
  requests: readonly string[];
  workspace: WorkspaceName;
}

function stageStep(t: ScheduledTask, stage: number): ScheduleStep {
  return { kind: "stage", task: t.id, workspace: t.workspace, stage, text: t.requests[stage - 1]! };
}

/** The uninterrupted schedule: the focus stages in order, then finalization. */
export function baseSchedule(focus: ScheduledTask): ScheduleStep[] {
  return [...focus.requests.map((_, k) => stageStep(focus, k + 1)), { kind: "finalization", task: focus.id, workspace: focus.workspace }];
}

/** Number of substantive focus requests that directly follow work in another workspace. */
export function countFocusReturns(steps: readonly ScheduleStep[], focusId: string): number {
  let n = 0;
  for (let i = 1; i < steps.length; i++) {
    const s = steps[i]!;
    if (s.task === focusId && s.kind === "stage" && steps[i - 1]!.task !== focusId) n++;
  }
  return n;
}

/** Tasks whose requests are all consecutive although they have two or more (never suspended). */
function neverSuspended(steps: readonly ScheduleStep[], taskIds: readonly string[]): number {
  let n = 0;
  for (const id of taskIds) {
    const idx = steps.flatMap((s, i) => (s.task === id ? [i] : []));
    if (idx.length >= 2 && idx[idx.length - 1]! - idx[0]! === idx.length - 1) n++;
  }
  return n;
}

/** Splits `length` items into `parts` non-empty contiguous chunk sizes at random cut points. */
function chunkSizes(rng: Random, length: number, parts: number): number[] {
  const cuts = sample(
    rng,
    Array.from({ length: length - 1 }, (_, i) => i + 1),
    parts - 1,
  ).sort((a, b) => a - b);
  const bounds = [0, ...cuts, length];
  return bounds.slice(1).map((b, i) => b - bounds[i]!);
}

interface Chunk {
  task: ScheduledTask;
  stages: number[];
}

function draftSwitch(rng: Random, focus: ScheduledTask, interruptions: readonly ScheduledTask[]): ScheduleStep[] {
  const gaps = focus.requests.length; // gap g sits after focus stage g (the last one before finalization)
  const byGap: Chunk[][] = Array.from({ length: gaps }, () => []);
  for (const t of interruptions) {
    const n = t.requests.length;
    const prefix = randomInt(rng, Math.min(2, n), n);
    const maxParts = gaps >= 2 ? Math.min(prefix, gaps, 3) : Math.min(prefix, 2);
    const parts = prefix >= 2 ? randomInt(rng, 2, Math.max(2, maxParts)) : 1;
    const sizes = chunkSizes(rng, prefix, parts);
    const gapIdx =
      parts <= gaps
        ? sample(
            rng,
            Array.from({ length: gaps }, (_, i) => i),
            parts,
          ).sort((a, b) => a - b)
        : Array.from({ length: parts }, () => randomInt(rng, 0, gaps - 1)).sort((a, b) => a - b);
    let next = 1;
    sizes.forEach((size, i) => {
      byGap[gapIdx[i]!]!.push({ task: t, stages: Array.from({ length: size }, (_, k) => next + k) });
      next += size;
    });
  }
  const steps: ScheduleStep[] = [];
  for (let g = 0; g < gaps; g++) {
    steps.push(stageStep(focus, g + 1));
    // Round-robin over tasks in a random order keeps each task's chunks in order and apart.
    const queues = new Map<string, Chunk[]>();
    for (const c of byGap[g]!) queues.set(c.task.id, [...(queues.get(c.task.id) ?? []), c]);
    const order = shuffled(rng, [...queues.keys()].sort());
    while (order.some((id) => queues.get(id)!.length > 0)) {
      for (const id of order) {
        const c = queues.get(id)!.shift();
        if (c) for (const s of c.stages) steps.push(stageStep(c.task, s));
      }
    }
  }
  steps.push({ kind: "finalization", task: focus.id, workspace: focus.workspace });
  return steps;
}

/**
 * A switched schedule built to meet both rules by construction, for the task shapes where no random draft
 * met them: every request of every interruption, round-robin over the interruptions in a random order,
 * longest first (each task's requests stay in order; the longest has the whole first round after its first
 * request, every other task the longest's next request, so each is suspended and resumed), cut into
 * non-empty pieces placed in as many of the gaps that a focus request follows as the focus-returns rule asks.
 */
export function constructedSwitch(
  rng: Random,
  focus: ScheduledTask,
  interruptions: readonly ScheduledTask[],
  rule: FocusReturnsRule = "every-stage",
): ScheduleStep[] {
  const gaps = focus.requests.length;
  const queues = shuffled(rng, interruptions)
    .sort((a, b) => b.requests.length - a.requests.length)
    .map((t) => t.requests.map((_, k) => stageStep(t, k + 1)));
  const seq: ScheduleStep[] = [];
  for (let k = 0; queues.some((q) => k < q.length); k++) for (const q of queues) if (k < q.length) seq.push(q[k]!);
  const want = wantedFocusReturns(rule, gaps, seq.length);
  const byGap: ScheduleStep[][] = Array.from({ length: gaps }, () => []);
  if (want === 0) byGap[gaps - 1]!.push(...seq);
  else {
    const covered = sample(
      rng,
      Array.from({ length: gaps - 1 }, (_, i) => i),
      want,
    ).sort((a, b) => a - b);
    let at = 0;
    chunkSizes(rng, seq.length, want).forEach((size, i) => {
      byGap[covered[i]!]!.push(...seq.slice(at, at + size));
      at += size;
    });
  }
  const steps: ScheduleStep[] = [];
  for (let g = 0; g < gaps; g++) steps.push(stageStep(focus, g + 1), ...byGap[g]!);
  steps.push({ kind: "finalization", task: focus.id, workspace: focus.workspace });
  return steps;
}

/**
 * The switched schedule: each interruption contributes an ordered prefix of its stages, split into chunks
 * placed between focus requests; finalization stays last. Drafts are redrawn (from the same stream) until
 * the focus returns as often as `rule` asks (every-stage: before every focus stage after the first) and
 * every interruption with two or more requests is suspended and resumed (C.5); when no draft does, a
 * schedule built to meet both rules is taken, so the rules hold for every task shape that allows them.
 */
export function switchSchedule(
  rng: Random,
  focus: ScheduledTask,
  interruptions: readonly ScheduledTask[],
  rule: FocusReturnsRule = "every-stage",
): ScheduleStep[] {
  const available = interruptions.reduce((n, t) => n + t.requests.length, 0);
  const wantReturns = wantedFocusReturns(rule, focus.requests.length, available);
  const ids = interruptions.map((t) => t.id);
  for (let attempt = 0; attempt < 64; attempt++) {
    const steps = draftSwitch(rng, focus, interruptions);
    if (countFocusReturns(steps, focus.id) >= wantReturns && neverSuspended(steps, ids) === 0) return steps;
  }
  return constructedSwitch(rng, focus, interruptions, rule);
}
