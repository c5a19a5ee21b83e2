import { InputError } from "../core/errors.js";
import { seededRandom, shuffled, sample } from "../core/random.js";
import type { Dataset } from "../dataset/load.js";
import { candidatesByTask, type Candidates, type Footprint } from "./locality.js";
import { datasetFootprints } from "./footprints.js";
import { baseSchedule, switchSchedule, type ScheduledTask } from "./schedule.js";
import { workspaceNames, type Locality, type SessionPair, type SessionsFile } from "../formats/sessions.js";

export interface BuildOptions {
  seed: number;
  /** Number of near sessions; omitted = as many as the dataset allows. */
  near?: number;
  /** Number of far sessions; omitted = as many as the dataset allows. */
  far?: number;
}

const needed = 4;

function whyNot(task: string, repo: string, c: Candidates): string {
  return (
    `${task}: no locality has ${needed} eligible interruptions in repository ${repo}: ` +
    `${c.near.length} near, ${c.far.length} far, ${c.overlapping} share a source file with it`
  );
}

/** Assigns each focus a locality (or none), meeting the requested counts; seeded. */
function assignLocalities(
  ids: readonly string[],
  cands: Map<string, Candidates>,
  opts: BuildOptions,
  footprint: Map<string, Footprint>,
): { assigned: Map<string, Locality>; excluded: { task: string; reason: string }[] } {
  const rng = seededRandom("switch-swe/assign", opts.seed);
  const order = shuffled(rng, ids);
  const can = (id: string, loc: Locality) => cands.get(id)![loc].length >= needed;
  const room = { near: opts.near ?? Infinity, far: opts.far ?? Infinity };
  const count = { near: 0, far: 0 };
  const assigned = new Map<string, Locality>();
  const excluded: { task: string; reason: string }[] = [];
  // Tasks with a single possible locality go first, so the flexible ones fill the gaps.
  const single = order.filter((id) => can(id, "near") !== can(id, "far"));
  const both = order.filter((id) => can(id, "near") && can(id, "far"));
  for (const id of single) {
    const loc: Locality = can(id, "near") ? "near" : "far";
    if (count[loc] < room[loc]) {
      assigned.set(id, loc);
      count[loc]++;
    }
  }
  for (const id of both) {
    const prefer: Locality = count.near <= count.far ? "near" : "far";
    const other: Locality = prefer === "near" ? "far" : "near";
    const loc = count[prefer] < room[prefer] ? prefer : count[other] < room[other] ? other : null;
    if (loc) {
      assigned.set(id, loc);
      count[loc]++;
    }
  }
  for (const id of [...ids].sort()) {
    if (assigned.has(id)) continue;
    const c = cands.get(id)!;
    const repo = footprint.get(id)!.repo;
    if (!can(id, "near") && !can(id, "far")) excluded.push({ task: id, reason: whyNot(id, repo, c) });
    else excluded.push({ task: id, reason: `${id}: not needed: the requested near and far session counts are met` });
  }
  const problems = (["near", "far"] as const).flatMap((loc) => {
    const want = opts[loc];
    if (want === undefined || count[loc] >= want) return [];
    const possible = ids.filter((id) => can(id, loc)).length;
    return [
      {
        file: "sessions build",
        path: `--${loc}`,
        message: `asked for ${want} ${loc} sessions, but only ${count[loc]} could be formed (${possible} focus tasks have ${needed} eligible ${loc} interruptions)`,
      },
    ];
  });
  if (problems.length > 0) throw new InputError(problems);
  return { assigned, excluded };
}

/**
 * Builds the paired sessions of a dataset. Pure: the same dataset and seed always give the
 * same value (and so byte-identical JSON). Each focus draws from its own seeded stream, so
 * adding a task to a repository does not reshuffle the sessions of unrelated focus tasks.
 */
export function buildSessions(dataset: Dataset, opts: BuildOptions, footprints: Footprint[] = datasetFootprints(dataset)): SessionsFile {
  const footprint = new Map(footprints.map((f) => [f.id, f]));
  const cands = candidatesByTask(footprints);
  const tasks = new Map(dataset.tasks.map((t) => [t.id, t]));
  const ids = dataset.tasks.map((t) => t.id);
  const { assigned, excluded } = assignLocalities(ids, cands, opts, footprint);

  const pairs: SessionPair[] = [];
  for (const focusId of [...assigned.keys()].sort()) {
    const locality = assigned.get(focusId)!;
    const rng = seededRandom("switch-swe/session", opts.seed, focusId);
    const interruptions = sample(rng, cands.get(focusId)![locality], needed);
    const members = [focusId, ...interruptions];
    const names = shuffled(rng, workspaceNames);
    const ws = new Map(members.map((id, i) => [id, names[i]!]));
    const scheduled = (id: string): ScheduledTask => ({
      id,
      requests: tasks.get(id)!.requests.map((r) => r.text),
      workspace: ws.get(id)!,
    });
    const focus = scheduled(focusId);
    const workspaces = Object.fromEntries(
      [...ws.entries()].map(([id, w]) => [w, id] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1)),
    ) as SessionPair["workspaces"];
    pairs.push({
      id: focusId,
      focus: focusId,
      repo: footprint.get(focusId)!.repo,
      locality,
      interruptions,
      workspaces,
      source_files: Object.fromEntries(members.map((id) => [id, [...footprint.get(id)!.files].sort()])),
      schedules: {
        base: baseSchedule(focus),
        switch: switchSchedule(rng, focus, interruptions.map(scheduled)),
      },
    });
  }
  return {
    format: "switch-swe.sessions/1",
    dataset: { name: dataset.manifest.name, version: dataset.manifest.version },
    seed: opts.seed,
    focus_returns: "every-stage",
    pairs,
    excluded,
  };
}
