import type { Group } from "./history.js";
import type { RequestFeatures, RouterIndex } from "./router-index.js";
import { requestNovelty, scoreTasks, type RequestNovelty, type TaskScore } from "./router-score.js";

/** How an assignment was decided, strongest first. */
export type RouteMethod =
  "first" | "workspace" | "refs" | "multi" | "similarity" | "aux" | "shared" | "closing" | "follow-up" | "new" | "ambiguous";

/** A group's task (null: shared context, visible to every task) and how sure the router is. */
export interface Assignment {
  task: string | null;
  confidence: number;
  method: RouteMethod;
  /** Other tasks the request also belongs to (it names their files or symbols): it stays in their history too. */
  also?: string[];
  /**
   * For a request that started a task below the threshold: the confidence of a later request routed
   * to that task at or above it. The later request names what this one introduced, so the task is
   * real work of its own, and this request is as settled as that one.
   */
  confirmed?: number;
}

/** Whether an assignment is sure enough for its group to be filtered and folded. */
export function settled(a: Assignment, threshold: number): boolean {
  return Math.max(a.confidence, a.confirmed ?? 0) >= threshold;
}

export interface TaskInfo {
  id: string;
  /** The workspace the task's requests name, when they name one. */
  workspace: string | null;
  /** A short label: the start of the task's first request. */
  label: string;
  groups: string[];
}

/** What the router remembers (persisted with the session). */
export interface RouterState {
  tasks: TaskInfo[];
  assignments: Record<string, Assignment>;
  next: number;
}

export function emptyRouterState(): RouterState {
  return { tasks: [], assignments: {}, next: 1 };
}

/** Requests that state rules for all tasks rather than work on one. */
const sharedInstruction =
  /\b(from now on|for (all|every|each) (of (the|my) )?(tasks?|projects?|repos(itories)?|workspaces?)|in (all|every) (of (the|my) )?(tasks?|projects?|repos(itories)?|workspaces?)|across (all )?(the )?(tasks|projects|repos(itories)?|workspaces)|globally)\b/i;

/**
 * Openings that presuppose earlier work on the same subject ("Finally, …", "Next, …", "Follow-up on
 * …", "Review round: …"): such a request continues a task, it does not start one.
 */
const continuing =
  /^(also|finally|next|then|now|(one|two|three|a few|some) more( things?| requests?| changes?)?|another thing|follow[- ]up|last (request|round|review round|thing|step)|review( round)?|(a )?second|(the )?same)\b/i;

/** A request to finish "the task" that names nothing else (such as the harness's finalization request). */
const closing = /^(please )?(finish|complete|wrap up|finali[sz]e) (the|this|your) (task|work)\b/i;

/** Requests that only make sense with the conversation before them. */
const anaphoric =
  /^(ok|okay|yes|no|sure|thanks|great|good|go on|go ahead|continue|also|and|then|now|next|again|same)\b|^(please )?(fix|do|undo|revert|try|change|finish) (it|that|this|them)\b|\b(this|the same) (task|workspace|change|feature|fix)\b/i;

/** A decision before it is recorded: `newTask` asks for a new task id. */
export type Decision = Assignment & { newTask: boolean };

const decide = (task: string | null, confidence: number, method: RouteMethod, newTask = false): Decision => ({
  task,
  confidence: round(confidence),
  method,
  newTask,
});

/**
 * Tasks besides `primary` that a request names: files or symbols only they hold, or one of its files
 * and a name of their own (a class or function they worked on, that another task of the module may
 * share), and a fair share (≥ 25%) of what the request names. Such a request spans tasks and belongs
 * to each of them.
 */
function spannedTasks(scored: readonly TaskScore[], primary: string): string[] {
  return scored
    .filter((s) => s.task !== primary && (s.exclusive >= 1 || (s.files >= 1 && s.specific >= 1)) && s.coverage >= 0.25)
    .map((s) => s.task)
    .sort();
}

/** The decision, assigned to the other tasks it spans as well. */
function withSpan(d: Decision, scored: readonly TaskScore[]): Decision {
  if (d.task === null || d.newTask) return d;
  const also = spannedTasks(scored, d.task);
  return also.length > 0 ? { ...d, also } : d;
}

/**
 * Decides the task of a new request from the evidence of earlier groups, without any model:
 * 1. a `Workspace:` line, when there is one: the task that already works there, or a new task;
 * 2. files, modules and code symbols shared with one task's requests, tool calls and edits
 *    (idf-weighted, partial symbol matches included) and a fair share of what the request names;
 * 3. mostly files and symbols no task knows, and no likeness: a new task;
 * 4. textual similarity with a clear margin;
 * otherwise a low-confidence guess (the full history is kept for it).
 */
export function routeRequest(state: RouterState, index: RouterIndex, f: RequestFeatures, lastTask: string | null): Decision {
  const tasks = state.tasks;
  if (tasks.length === 0) return decide(null, 1, "first", true);
  const ws = f.refs.workspace;
  if (ws === null && sharedInstruction.test(f.body)) return decide(null, 0.85, "shared");
  if (ws === null && closing.test(f.body.trim()) && f.keys.length === 0 && f.refs.symbols.size === 0) {
    // Nothing says which task; "the task" of a conversation is the one it was opened for (its first).
    return decide(tasks[0]!.id, 0.8, "closing");
  }
  let cands = tasks;
  if (ws !== null) {
    const same = tasks.filter((t) => t.workspace === ws);
    if (same.length === 0) return decide(null, 0.95, "workspace", true);
    if (same.length === 1) return decide(same[0]!.id, 0.97, "workspace");
    cands = same;
  }
  return routeByEvidence(
    index,
    f,
    cands.map((t) => t.id),
    lastTask,
  );
}

function routeByEvidence(index: RouterIndex, f: RequestFeatures, cands: readonly string[], lastTask: string | null): Decision {
  const scored = scoreTasks(index, f, cands);
  return withSpan(decideByEvidence(index, f, scored, lastTask), scored);
}

function decideByEvidence(index: RouterIndex, f: RequestFeatures, scored: TaskScore[], lastTask: string | null): Decision {
  const novelty = requestNovelty(index, f);
  const byRef = [...scored].sort((a, b) => b.ref - a.ref);
  const bySim = [...scored].sort((a, b) => b.sim - a.sim);
  const [r1, r2] = [byRef[0]!, byRef[1]];
  const [s1, s2] = [bySim[0]!, bySim[1]];
  if (process.env.RCM_ROUTER_DEBUG)
    process.stderr.write(`${JSON.stringify({ novelty, byRef: byRef.slice(0, 3), bySim: bySim.slice(0, 3) })}\n`);
  const leansBack = continuing.test(f.body.trim());
  // Many names no task knows, and words like no task's requests (neither with its names nor
  // without, or nothing in common once the names are left out): new work, even when it names
  // classes a task named (tasks of one package name its main classes alike).
  const subject = Math.max(...scored.map((s) => s.subject));
  if (!leansBack && novelty.weight * novelty.unknown >= manyNewNames && (subject < 0.06 || (s1.sim < 0.2 && subject < 0.15)))
    return decide(null, 0.85, "new", true);
  const byMeaning = decideWithinModules(byRef, novelty, leansBack);
  if (byMeaning !== null) return byMeaning;
  // One name alone, and that a one-word class of the project's API that tasks name in passing
  // (`Tree`, `Console`): a new report names it too. Unless the request says it continues, or its words are
  // clearly that task's, such a name does not place it: the router defers (the auxiliary model decides).
  if (!leansBack && r1.held === 1 && r1.nouns === 1 && !(s1.task === r1.task && s1.sim >= 0.3 && s1.sim - (s2?.sim ?? 0) >= 0.15)) {
    return singleNameOnly(r1, s1, novelty);
  }
  // A request of a few words that names nothing ("Fix", "Add more tests", "lint"): one common word
  // makes a high likeness to whichever task used it. Wording that short places nothing.
  if (r1.ref === 0 && f.terms.size < minSubjectTerms) {
    const leaning = anaphoric.test(f.body.trim()) || f.words < 8;
    return leaning && lastTask !== null ? decide(lastTask, 0.6, "follow-up") : decide(null, 0.5, "ambiguous");
  }
  // References decide when one task holds clearly more of them than any other, and they are a fair
  // share of what the request names (a request that mostly names new things is not a continuation).
  if (r1.ref > 0 && (r2 === undefined || r1.ref >= 2 * r2.ref) && r1.coverage >= 0.25) {
    const margin = r2 === undefined ? 1 : (r1.ref - r2.ref) / r1.ref;
    // Only the task's module, nothing of its own: a new report about that module names it alike.
    if (!leansBack && r1.held === r1.files && r1.specific === 0) return decide(r1.task, 0.75, "refs");
    return decide(r1.task, Math.min(0.95, 0.8 + 0.1 * margin + 0.1 * r1.coverage), "refs");
  }
  // Mostly files and symbols that no task has named or touched, and little likeness: new work, even
  // when it names a file or two of another task (tasks of one subsystem share its modules).
  // Not when it names two things of one task's own work (names only that task holds, not its
  // modules) and speaks of what that task's requests spoke of: the same work reaching a new file.
  const ownWork = r1.exclusive >= 2 && r1.specific >= 2 && r1.subject >= 0.15;
  const mostlyNew = !leansBack && !ownWork && novelty.weight > 0 && novelty.unknown >= 0.7 && r1.coverage < 0.25 && s1.sim < 0.3;
  // Several files or symbols that only one task has named or touched, and none of another task's.
  if (!mostlyNew && r1.exclusive >= 2 && (r2 === undefined || (r2.exclusive === 0 && r1.ref >= 2 * r2.ref)))
    return decide(r1.task, 0.85, "refs");
  // Files or symbols that only one task holds, for two or more tasks, and together most of what the
  // request names: the request spans those tasks. The one with the most names of its own leads (a
  // heavily weighted shared module counts less than the symbols only one task has worked on).
  const spanning = byRef.filter((s) => s.exclusive >= 1 && s.coverage >= 0.25).sort((a, b) => b.exclusive - a.exclusive || b.ref - a.ref);
  if (spanning.length >= 2 && spanning.reduce((n, s) => n + s.coverage, 0) >= 0.6) return decide(multiLead(spanning), 0.85, "multi");
  const gap = s1.sim - (s2?.sim ?? 0);
  // The request speaks of one task's subject much more than of any other (and no other task holds
  // more of its references): it continues that task even when it names new files.
  if (s1.sim >= 0.3 && gap >= 0.15 && (leansBack || (r1.ref > 0 && r1.task === s1.task)))
    return decide(s1.task, Math.min(0.92, 0.75 + gap), "similarity");
  if (mostlyNew) return decide(null, 0.85, "new", true);
  // One task leads on every count (references, references it alone holds, likeness), or the request
  // says it continues something and one task is clearly the likeliest.
  const consensus =
    r1.exclusive >= 1 &&
    r1.task === s1.task &&
    (r2 === undefined || r2.exclusive === 0) &&
    (leansBack || gap >= 0.1 || r1.ref >= 1.5 * (r2?.ref ?? 0));
  if (consensus) return decide(r1.task, 0.82, "refs");
  if (leansBack && r1.ref === 0 && s1.sim >= 0.15 && gap >= 0.1) return decide(s1.task, 0.8, "similarity");
  if (!leansBack && r1.coverage < 0.25 && f.keys.length > 0 && s1.sim < 0.5) return decide(null, r1.ref === 0 ? 0.75 : 0.7, "new", true);
  if (s1.sim >= 0.25 && gap >= 0.1) return decide(s1.task, Math.min(0.92, 0.72 + gap), "similarity");
  if (r1.ref === 0 && s1.sim < 0.1) {
    // Nothing in common with any task. A request that leans on the conversation ("ok, now also fix
    // that") continues the latest task; anything else is new work the router is not sure about.
    const leaning = anaphoric.test(f.body.trim()) || f.words < 8;
    if (leaning && lastTask !== null) return decide(lastTask, 0.6, "follow-up");
    return decide(null, f.keys.length + f.refs.symbols.size > 0 ? 0.75 : 0.7, "new", true);
  }
  // Undecided: the request joins no task (a guess would lend it the evidence of a task it may not
  // belong to); like a shared request, it stays in every task's history.
  return decide(null, 0.5, "ambiguous");
}

/**
 * A request whose only tie to a task is one name: new work when it names mostly new things and is
 * like no task, else undecided.
 */
function singleNameOnly(r1: TaskScore, s1: TaskScore, novelty: RequestNovelty): Decision {
  if (novelty.unknown >= 0.7 && s1.sim < 0.3) return decide(null, 0.85, "new", true);
  return decide(null, r1.exclusive >= 1 ? 0.7 : 0.5, r1.exclusive >= 1 ? "new" : "ambiguous", r1.exclusive >= 1);
}

/**
 * The task a request spanning several leads with: the one with most names of its own, unless what the
 * request says besides its names is clearly one task's (likeness ≥ 0.15 and twice any other's): names
 * it shares with the others are then what it reaches into, not the work it continues.
 */
function multiLead(spanning: readonly TaskScore[]): string {
  const [a, b] = [...spanning].sort((x, y) => y.subject - x.subject);
  return a!.subject >= 0.15 && a!.subject >= 2 * b!.subject ? a!.task : spanning[0]!.task;
}

/** Distinct words (besides stop words) a request needs for its likeness to a task to decide anything. */
const minSubjectTerms = 5;

/** Names of its own no task knows (reference weight: files 3, symbols 2) for a request to be new work in a known module. */
const manyNewNames = 10;

/**
 * Tasks of one module. When the task the references point at holds only the request's modules (its
 * files, and names built on them: `LatexPrinter` of latex.py), they say where the request works, not
 * which work it continues: two reports about one module name the same file and class. Then
 * - a task that holds the request's own names (functions, classes, compound names) continues;
 * - a request that names many new things and says something else than every task of the module
 *   (the likeness of its words besides the names) is new work (unsure when the likeness is middling);
 * - a request that leans on earlier work continues the task of the module whose requests it is like,
 *   when that likeness is clear; when it is weak or close between tasks, the router is unsure (an
 *   auxiliary model, if configured, decides).
 * Null: the references decide as usual.
 */
function decideWithinModules(byRef: readonly TaskScore[], novelty: RequestNovelty, leansBack: boolean): Decision | null {
  const r1 = byRef[0]!;
  if (r1.files === 0 || r1.specific > 0) return null;
  // A task holding a name of the request's own, and a fair share of what it names, or two such names.
  const named = byRef.filter((s) => s.specific >= 2 || (s.specific >= 1 && s.coverage >= 0.25));
  if (named.length === 1 && named[0]!.specific >= 2) return decide(named[0]!.task, 0.85, "refs");
  if (named.length > 0) return null;
  const [h1, h2] = byRef.filter((s) => s.files > 0).sort((a, b) => b.subject - a.subject);
  if (!leansBack && novelty.weight * novelty.unknown >= manyNewNames) {
    if (h1!.subject < 0.2) return decide(null, 0.85, "new", true);
    // Middling likeness, and references that alone would make it a continuation: unsure.
    if (h1!.subject < 0.3 && r1.coverage >= 0.25) return decide(null, 0.75, "new", true);
  }
  if (!leansBack || h2 === undefined) return null;
  if (h1!.subject >= 0.1 && h1!.subject >= 2 * h2.subject) return decide(h1!.task, 0.85, "similarity");
  return decide(r1.task, 0.75, "refs");
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Records an assignment; a new task gets the next id (`t1`, `t2`, …). Returns the task id or null. */
export function commitAssignment(
  state: RouterState,
  group: Group,
  decision: Decision,
  workspace: string | null,
  /** The routing threshold: a confident request confirms its task's unsure opening (see Assignment.confirmed). */
  threshold?: number,
): Assignment {
  let task = decision.task;
  if (decision.newTask) {
    task = `t${state.next++}`;
    state.tasks.push({ id: task, workspace, label: labelOf(group.userText), groups: [] });
  }
  const a: Assignment = {
    task,
    confidence: decision.confidence,
    method: decision.method,
    ...(decision.also && task !== null ? { also: decision.also.filter((t) => t !== task) } : {}),
  };
  state.assignments[group.id] = a;
  if (task !== null) {
    const info = state.tasks.find((t) => t.id === task);
    if (info && !decision.newTask && threshold !== undefined && a.confidence >= threshold)
      confirmOpening(state, info, a.confidence, threshold);
    if (info && !info.groups.includes(group.id)) info.groups.push(group.id);
    if (info && info.workspace === null && workspace !== null) info.workspace = workspace;
  }
  return a;
}

/** A task opened by an unsure "new" decision is confirmed by the first confident request routed to it. */
function confirmOpening(state: RouterState, task: TaskInfo, confidence: number, threshold: number): void {
  const opening = task.groups[0] === undefined ? undefined : state.assignments[task.groups[0]];
  if (opening && opening.method === "new" && !settled(opening, threshold)) opening.confirmed = confidence;
}

export function labelOf(userText: string): string {
  const body = userText
    .replace(/^(Repository|Workspace):.*$/gm, "")
    .trim()
    .replace(/\s+/g, " ");
  return body.length > 80 ? `${body.slice(0, 77)}…` : body;
}
