import { posix } from "node:path";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import { sourceMatcher } from "../dataset/file-rules.js";
import { touchedPaths } from "../dataset/patch-files.js";
import { pathMatcher } from "../core/path-globs.js";
import {
  sessionId,
  wantedFocusReturns,
  type FocusReturnsRule,
  type ScheduleStep,
  type SessionPair,
  type SessionsFile,
} from "../formats/sessions.js";

/** One violated property of one session. */
export interface SessionViolation {
  session: string;
  property: string;
  message: string;
}

const WORKSPACES = ["w00", "w01", "w02", "w03", "w04"];

/**
 * Checks a sessions file against its dataset. Deliberately written without the builder's code
 * (its own source-file, locality and schedule logic), so a bug in one is caught by the other.
 */
export function checkSessions(file: SessionsFile, dataset: Dataset): SessionViolation[] {
  const out: SessionViolation[] = [];
  const tasks = new Map(dataset.tasks.map((t) => [t.id, t]));
  if (file.dataset.name !== dataset.manifest.name || file.dataset.version !== dataset.manifest.version) {
    out.push({
      session: "*",
      property: "dataset",
      message: `built for ${file.dataset.name}@${file.dataset.version}, dataset is ${dataset.manifest.name}@${dataset.manifest.version}`,
    });
  }
  const seen = new Set<string>();
  for (const pair of file.pairs) {
    if (seen.has(pair.id)) out.push({ session: pair.id, property: "unique-id", message: "pair id appears twice" });
    seen.add(pair.id);
    out.push(...checkPair(pair, tasks, dataset, file.focus_returns ?? "at-most-two"));
  }
  return out;
}

const filesCache = new WeakMap<LoadedTask, Set<string>>();

function filesOf(task: LoadedTask, dataset: Dataset): Set<string> {
  const cached = filesCache.get(task);
  if (cached) return cached;
  const isSource = sourceMatcher(dataset.manifest.repos[task.repo] ?? {});
  const s = new Set<string>();
  for (const p of task.stagePatches) for (const f of touchedPaths(p)) if (isSource(f)) s.add(f);
  filesCache.set(task, s);
  return s;
}

/** A file's locality unit: its declared subsystem (first that matches), else its parent directory. */
function unitOf(dataset: Dataset, repo: string): (file: string) => string {
  const declared = Object.entries(dataset.manifest.repos[repo]?.source?.subsystems ?? {});
  const groups = declared.map(([name, globs]) => [name, pathMatcher(globs)] as const);
  return (file) => {
    for (const [name, match] of groups) if (match(file)) return `subsystem:${name}`;
    return posix.dirname(file);
  };
}

type Report = (condition: "base" | "switch" | null, property: string, message: string) => void;

/** One session of a pair: members and their workspaces, texts as the dataset has them, one finalization last, stages in order. */
function checkSchedule(
  c: {
    pair: SessionPair;
    condition: "base" | "switch";
    members: Set<string>;
    wsOf: Map<string, string>;
    tasks: Map<string, LoadedTask>;
    focus: LoadedTask;
  },
  v: Report,
): void {
  const { pair, condition, members, wsOf, tasks, focus } = c;
  const steps = pair.schedules[condition];
  for (const [i, s] of steps.entries()) {
    if (!members.has(s.task)) v(condition, "members", `request ${i} names ${s.task}, not a task of this pair`);
    if (wsOf.get(s.task) !== s.workspace)
      v(condition, "workspace-path", `request ${i} of ${s.task} goes to ${s.workspace}, its workspace is ${wsOf.get(s.task) ?? "none"}`);
    if (s.kind === "stage") {
      const text = tasks.get(s.task)?.requests[s.stage - 1]?.text;
      if (text === undefined) v(condition, "payload", `request ${i}: ${s.task} has no stage ${s.stage}`);
      else if (text !== s.text) v(condition, "payload", `request ${i}: text of ${s.task} stage ${s.stage} differs from the dataset`);
    }
  }
  const finals = steps.flatMap((s, i) => (s.kind === "finalization" ? [i] : []));
  const last = steps[steps.length - 1];
  if (finals.length !== 1 || !last || last.kind !== "finalization" || last.task !== pair.focus) {
    v(condition, "finalization-last", "exactly one finalization, of the focus, must come last");
  }
  for (const id of members) {
    const stages = steps
      .filter((s): s is Extract<ScheduleStep, { kind: "stage" }> => s.kind === "stage" && s.task === id)
      .map((s) => s.stage);
    const prefix = stages.every((st, k) => st === k + 1);
    if (!prefix) v(condition, "task-order", `${id} requests are not an ordered prefix of its stages: ${stages.join(",")}`);
    if (condition === "base" && id !== pair.focus && stages.length > 0)
      v(condition, "uninterrupted", `${id} appears in the uninterrupted session`);
    if (condition === "switch" && id !== pair.focus && stages.length === 0)
      v(condition, "interruptions", `${id} never appears in the switched session`);
  }
  const focusStages = steps.filter((s) => s.task === pair.focus && s.kind === "stage").length;
  if (focusStages !== focus.requests.length) v(condition, "focus-complete", `focus has ${focusStages} of ${focus.requests.length} stages`);
}

function checkPair(pair: SessionPair, tasks: Map<string, LoadedTask>, dataset: Dataset, rule: FocusReturnsRule): SessionViolation[] {
  const out: SessionViolation[] = [];
  const v = (condition: "base" | "switch" | null, property: string, message: string) =>
    out.push({ session: condition ? sessionId(pair.id, condition) : pair.id, property, message });

  const focus = tasks.get(pair.focus);
  if (pair.id !== pair.focus) v(null, "id", `pair id ${pair.id} differs from its focus ${pair.focus}`);
  if (!focus) {
    v(null, "focus", `focus task ${pair.focus} is not in the dataset`);
    return out;
  }
  if (focus.repo !== pair.repo) v(null, "repo", `focus is in ${focus.repo}, pair says ${pair.repo}`);

  const ints = pair.interruptions;
  if (new Set(ints).size !== 4 || ints.length !== 4) v(null, "interruptions", "needs exactly four distinct interruptions");
  if (ints.includes(pair.focus)) v(null, "interruptions", "the focus is also an interruption");
  const focusFiles = filesOf(focus, dataset);
  const unit = unitOf(dataset, focus.repo);
  const focusUnits = new Set([...focusFiles].map(unit));
  for (const id of ints) {
    const t = tasks.get(id);
    if (!t) {
      v(null, "interruptions", `${id} is not in the dataset`);
      continue;
    }
    if (t.repo !== focus.repo) v(null, "same-repository", `${id} is in ${t.repo}, the focus in ${focus.repo}`);
    const files = filesOf(t, dataset);
    const shared = [...files].filter((f) => focusFiles.has(f));
    if (shared.length > 0) v(null, "disjoint-source", `${id} shares source files with the focus: ${shared.join(", ")}`);
    const actual = [...files].some((f) => focusUnits.has(unit(f))) ? "near" : "far";
    if (actual !== pair.locality) v(null, "locality", `${id} is ${actual} to the focus, the pair is ${pair.locality}`);
    const recorded = pair.source_files[id];
    if (!recorded || recorded.join("\n") !== [...files].sort().join("\n"))
      v(null, "source-files", `recorded source files of ${id} differ from its patches`);
  }
  const recordedFocus = pair.source_files[pair.focus];
  if (!recordedFocus || recordedFocus.join("\n") !== [...focusFiles].sort().join("\n")) {
    v(null, "source-files", `recorded source files of the focus differ from its patches`);
  }

  // Workspaces: a bijection between w00..w04 and the five tasks.
  const members = new Set([pair.focus, ...ints]);
  const wsOf = new Map<string, string>();
  const names = Object.keys(pair.workspaces).sort();
  if (names.join() !== WORKSPACES.join())
    v(null, "workspaces", `workspaces must be exactly ${WORKSPACES.join(", ")}, found ${names.join(", ")}`);
  for (const [w, id] of Object.entries(pair.workspaces)) {
    if (!members.has(id)) v(null, "workspaces", `${w} holds ${id}, which is not a task of this pair`);
    if (wsOf.has(id)) v(null, "workspaces", `${id} has two workspaces`);
    wsOf.set(id, w);
  }

  for (const condition of ["base", "switch"] as const) checkSchedule({ pair, condition, members, wsOf, tasks, focus }, v);
  for (const r of switchRuleViolations(
    pair.schedules.switch,
    pair.focus,
    pair.interruptions,
    (id) => tasks.get(id)?.requests.length,
    rule,
  )) {
    v("switch", r.property, r.message);
  }
  const project = (steps: ScheduleStep[]) => JSON.stringify(steps.filter((s) => s.task === pair.focus));
  if (project(pair.schedules.base) !== project(pair.schedules.switch)) {
    v("switch", "focus-projection", "the focus requests of the switched session differ from the uninterrupted session");
  }
  return out;
}

/**
 * The two schedule rules of the method (C.5), checked on a switched schedule:
 * `interruption-resumed`: an interruption with two or more requests in the dataset is suspended and resumed,
 * so another task's request comes between its first and its last request;
 * `focus-returns`: the focus returns as often as `rule` asks (every-stage: stages − 1; at-most-two:
 * min(2, stages − 1)), a return being a substantive focus request right after a request of another task
 * (finalization excluded), fewer only when the interruptions have fewer requests in all than that.
 * `stagesOf` gives a task's number of requests in the dataset.
 */
export function switchRuleViolations(
  steps: readonly ScheduleStep[],
  focus: string,
  interruptions: readonly string[],
  stagesOf: (task: string) => number | undefined,
  rule: FocusReturnsRule = "every-stage",
): Array<{ property: string; message: string }> {
  const out: Array<{ property: string; message: string }> = [];
  for (const id of interruptions) {
    const total = stagesOf(id) ?? 0;
    const at = steps.flatMap((s, i) => (s.task === id ? [i] : []));
    // Absent altogether is the `interruptions` rule's finding.
    if (total < 2 || at.length === 0) continue;
    if (at.length === 1) {
      out.push({
        property: "interruption-resumed",
        message: `${id} has ${total} requests but one in the switched session: it is never resumed`,
      });
      continue;
    }
    const between = steps.slice(at[0], at[at.length - 1]).some((s) => s.task !== id);
    if (!between)
      out.push({
        property: "interruption-resumed",
        message: `${id}'s ${at.length} requests come one after another: it is never suspended and resumed`,
      });
  }
  const stages = stagesOf(focus) ?? 0;
  const available = interruptions.reduce((n, id) => n + (stagesOf(id) ?? 0), 0);
  const need = wantedFocusReturns(rule, stages, available);
  let returns = 0;
  steps.forEach((s, i) => {
    if (i > 0 && s.kind === "stage" && s.task === focus && steps[i - 1]!.task !== focus) returns++;
  });
  if (returns < need) {
    out.push({
      property: "focus-returns",
      message: `the focus returns ${returns} time(s) after work on another task, at least ${need} needed (${rule === "every-stage" ? "stages − 1" : "min(2, stages − 1)"} with ${stages} stages)`,
    });
  }
  return out;
}
