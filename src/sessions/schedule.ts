import { randomInt, sample, shuffled, type Random } from "../core/random.js";
import type { ScheduleStep, WorkspaceName } from "../formats/sessions.js";

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
  return [
    ...focus.requests.map((_, k) => stageStep(focus, k + 1)),
    { kind: "finalization", task: focus.id, workspace: focus.workspace },
  ];
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
        ? sample(rng, Array.from({ length: gaps }, (_, i) => i), parts).sort((a, b) => a - b)
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
 * A switched schedule built to meet both rules by construction, for the rare task shapes where no random
 * draft met them: each interruption with two or more scheduled requests is cut into two chunks with a
 * focus request (or, with a one-stage focus, other interruptions' requests) between them, and the first
 * chunks cover min(2, stages − 1) of the gaps that a focus request follows.
 */
export function constructedSwitch(rng: Random, focus: ScheduledTask, interruptions: readonly ScheduledTask[]): ScheduleStep[] {
  const gaps = focus.requests.length;
  const chunks = shuffled(rng, interruptions).map((t) => {
    const n = t.requests.length;
    const prefix = randomInt(rng, Math.min(2, n), n);
    const stages = Array.from({ length: prefix }, (_, k) => k + 1);
    if (prefix < 2) return { task: t, parts: [stages] };
    const cut = randomInt(rng, 1, prefix - 1);
    return { task: t, parts: [stages.slice(0, cut), stages.slice(cut)] };
  });
  const steps: ScheduleStep[] = [];
  if (gaps === 1) {
    // One gap: split tasks first, so between the two chunks of each lie the first chunks of the others.
    const order = [...chunks.filter((c) => c.parts.length === 2), ...chunks.filter((c) => c.parts.length === 1)];
    steps.push(stageStep(focus, 1));
    for (const round of [0, 1]) for (const c of order) for (const s of c.parts[round] ?? []) steps.push(stageStep(c.task, s));
  } else {
    // Gaps 0..gaps-2 are followed by a focus request; the first chunks of the first tasks cover `want` of them.
    const want = Math.min(2, gaps - 1);
    const covered = sample(rng, Array.from({ length: gaps - 1 }, (_, i) => i), want);
    const byGap: Array<Array<{ task: ScheduledTask; stages: number[] }>> = Array.from({ length: gaps }, () => []);
    chunks.forEach((c, i) => {
      const first = i < want ? covered[i]! : randomInt(rng, 0, c.parts.length === 2 ? gaps - 2 : gaps - 1);
      byGap[first]!.push({ task: c.task, stages: c.parts[0]! });
      if (c.parts.length === 2) byGap[randomInt(rng, first + 1, gaps - 1)]!.push({ task: c.task, stages: c.parts[1]! });
    });
    for (let g = 0; g < gaps; g++) {
      steps.push(stageStep(focus, g + 1));
      for (const c of byGap[g]!) for (const s of c.stages) steps.push(stageStep(c.task, s));
    }
  }
  steps.push({ kind: "finalization", task: focus.id, workspace: focus.workspace });
  return steps;
}

/**
 * The switched schedule: each interruption contributes an ordered prefix of its stages, split into chunks
 * placed between focus requests; finalization stays last. Drafts are redrawn (from the same stream) until
 * the focus returns min(2, stages − 1) times and every interruption with two or more requests is
 * suspended and resumed (C.5); when no draft does, a schedule built to meet both rules is taken, so the
 * rules hold for every task shape that allows them. Drafts come first because they are how every
 * schedule built before the guarantee was drawn: a seed that met the rules gives the same schedule.
 */
export function switchSchedule(rng: Random, focus: ScheduledTask, interruptions: readonly ScheduledTask[]): ScheduleStep[] {
  const wantReturns = Math.min(2, focus.requests.length - 1);
  const ids = interruptions.map((t) => t.id);
  for (let attempt = 0; attempt < 64; attempt++) {
    const steps = draftSwitch(rng, focus, interruptions);
    if (countFocusReturns(steps, focus.id) >= wantReturns && neverSuspended(steps, ids) === 0) return steps;
  }
  return constructedSwitch(rng, focus, interruptions);
}
