import type { Group } from "./history.js";
import { extractRefs, normalizePath, pathKeys, workspaceHolding, type Refs } from "./refs.js";
import { addInto, cosine, termCounts, type TermVector } from "./similarity.js";

/** How an assignment was decided, strongest first. */
export type RouteMethod = "first" | "workspace" | "refs" | "similarity" | "aux" | "shared" | "follow-up" | "new" | "ambiguous";

/** A group's task (null: shared context, visible to every task) and how sure the router is. */
export interface Assignment {
  task: string | null;
  confidence: number;
  method: RouteMethod;
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

/** Derived per-task evidence (rebuilt from the groups after a restart; never persisted). */
interface TaskProfile {
  keys: Map<string, number>;
  symbols: Map<string, number>;
  terms: TermVector;
}

export class RouterIndex {
  readonly profiles = new Map<string, TaskProfile>();
  /** Per group: how many of its actions were indexed, and whether its request was. */
  private readonly seen = new Map<string, number>();
  /** In how many tasks each path key / symbol occurs (for idf). */
  private readonly refTasks = new Map<string, Set<string>>();
  /** Document frequency of terms over indexed requests. */
  readonly df = new Map<string, number>();
  docs = 0;

  profile(task: string): TaskProfile {
    let p = this.profiles.get(task);
    if (!p) {
      p = { keys: new Map(), symbols: new Map(), terms: new Map() };
      this.profiles.set(task, p);
    }
    return p;
  }

  /** Adds what is new in a group (its request once, then actions as they arrive) to its task. */
  add(group: Group, task: string, workspace: string | null, features?: RequestFeatures): void {
    const p = this.profile(task);
    let counted = this.seen.get(group.id);
    if (counted === undefined) {
      const f = features ?? requestFeatures(group.userText, workspace);
      for (const k of f.keys) this.addRef(p.keys, `k:${k}`, k, task);
      for (const s of f.refs.symbols) this.addRef(p.symbols, `s:${s}`, s, task);
      addInto(p.terms, f.terms);
      for (const t of f.terms.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      this.docs++;
      counted = 0;
    }
    const ws = workspace ? [workspace] : [];
    for (const a of group.actions.slice(counted)) {
      if (a.kind !== "tool") continue;
      for (const raw of toolPaths(a.paths, a.args)) {
        const rel = normalizePath(raw, workspace && workspaceHolding(raw, ws) ? workspace : null);
        for (const k of pathKeys(rel)) this.addRef(p.keys, `k:${k}`, k, task);
      }
    }
    this.seen.set(group.id, group.actions.length);
  }

  private addRef(map: Map<string, number>, key: string, ref: string, task: string): void {
    map.set(ref, (map.get(ref) ?? 0) + 1);
    let s = this.refTasks.get(key);
    if (!s) this.refTasks.set(key, (s = new Set()));
    s.add(task);
  }

  refIdf(kind: "k" | "s", ref: string): number {
    const n = this.refTasks.get(`${kind}:${ref}`)?.size ?? 0;
    return Math.log1p(Math.max(1, this.profiles.size) / Math.max(1, n));
  }

  termIdf = (t: string): number => Math.log1p((this.docs + 1) / ((this.df.get(t) ?? 0) + 1));
}

/** Paths a tool call names: what the host reported, else the usual argument names. */
export function toolPaths(paths: string[] | undefined, args: unknown): string[] {
  if (paths && paths.length > 0) return paths;
  if (!args || typeof args !== "object") return [];
  const a = args as Record<string, unknown>;
  return ["filePath", "file_path", "path", "file", "filename"].flatMap((k) => (typeof a[k] === "string" ? [a[k]] : []));
}

export interface RequestFeatures {
  refs: Refs;
  keys: string[];
  terms: TermVector;
  words: number;
  /** The request without its Repository/Workspace header. */
  body: string;
}

export function requestFeatures(text: string, workspaceHint: string | null = null): RequestFeatures {
  const refs = extractRefs(text, workspaceHint);
  const keys = [...new Set([...refs.paths].flatMap(pathKeys))];
  const body = text.replace(/^(Repository|Workspace):.*$/gm, "");
  return { refs, keys, terms: termCounts(body), words: body.split(/\s+/).filter(Boolean).length, body };
}

/** Requests that state rules for all tasks rather than work on one. */
const sharedInstruction =
  /\b(from now on|for (all|every|each) (of (the|my) )?(tasks?|projects?|repos(itories)?|workspaces?)|in (all|every) (of (the|my) )?(tasks?|projects?|repos(itories)?|workspaces?)|across (all )?(the )?(tasks|projects|repos(itories)?|workspaces)|globally)\b/i;

/** Requests that only make sense with the conversation before them. */
const anaphoric =
  /^(ok|okay|yes|no|sure|thanks|great|good|go on|go ahead|continue|also|and|then|now|next|again|same)\b|^(please )?(fix|do|undo|revert|try|change|finish) (it|that|this|them)\b|\b(this|the same) (task|workspace|change|feature|fix)\b/i;

export interface RouteOptions {
  threshold: number;
}

/**
 * Decides the task of a new request from the evidence of earlier groups, without any model:
 * 1. a `Workspace:` line: the task that already works there, or a new task for a new workspace;
 * 2. files and code symbols shared with exactly one task's requests and tool calls (idf-weighted);
 * 3. textual similarity with a clear margin;
 * otherwise a low-confidence guess (the full history is kept for it).
 */
export function routeRequest(state: RouterState, index: RouterIndex, f: RequestFeatures, lastTask: string | null): Assignment & { newTask: boolean } {
  const tasks = state.tasks;
  if (tasks.length === 0) return { task: null, confidence: 1, method: "first", newTask: true };
  const ws = f.refs.workspace;
  if (ws === null && sharedInstruction.test(f.body)) {
    return { task: null, confidence: 0.85, method: "shared", newTask: false };
  }
  let cands = tasks;
  if (ws !== null) {
    const same = tasks.filter((t) => t.workspace === ws);
    if (same.length === 0) return { task: null, confidence: 0.95, method: "workspace", newTask: true };
    if (same.length === 1) return { task: same[0]!.id, confidence: 0.97, method: "workspace", newTask: false };
    cands = same;
  }
  const requestWeight = 3 * f.keys.length + 2 * f.refs.symbols.size;
  const scored = cands.map((t) => {
    const p = index.profile(t.id);
    let ref = 0;
    let covered = 0;
    for (const k of f.keys) {
      if (!p.keys.has(k)) continue;
      ref += 3 * index.refIdf("k", k);
      covered += 3;
    }
    for (const s of f.refs.symbols) {
      if (!p.symbols.has(s)) continue;
      ref += 2 * index.refIdf("s", s);
      covered += 2;
    }
    return { task: t.id, ref, coverage: requestWeight === 0 ? 0 : covered / requestWeight, sim: cosine(f.terms, p.terms, index.termIdf) };
  });
  const byRef = [...scored].sort((a, b) => b.ref - a.ref);
  const [r1, r2] = [byRef[0]!, byRef[1]];
  // References decide when one task holds clearly more of them than any other, and they are a fair
  // share of what the request names (a request that mostly names new things is not a continuation).
  if (r1.ref > 0 && (r2 === undefined || r1.ref >= 2 * r2.ref) && r1.coverage >= 0.25) {
    const margin = r2 === undefined ? 1 : (r1.ref - r2.ref) / r1.ref;
    return { task: r1.task, confidence: round(Math.min(0.95, 0.8 + 0.1 * margin + 0.1 * r1.coverage)), method: "refs", newTask: false };
  }
  const bySim = [...scored].sort((a, b) => b.sim - a.sim);
  const [s1, s2] = [bySim[0]!, bySim[1]];
  // Mostly files and symbols that no task has named or touched, and no strong likeness: new work.
  // A new task is never certain without a new workspace: its first request then keeps the full
  // history (it has no history of its own to gain), and filtering starts once it is continued.
  if (r1.coverage < 0.25 && f.keys.length > 0 && s1.sim < 0.5) return { task: null, confidence: r1.ref === 0 ? 0.75 : 0.7, method: "new", newTask: true };
  const gap = s1.sim - (s2?.sim ?? 0);
  if (s1.sim >= 0.25 && gap >= 0.1) {
    return { task: s1.task, confidence: round(Math.min(0.92, 0.72 + gap)), method: "similarity", newTask: false };
  }
  if (r1.ref === 0 && s1.sim < 0.1) {
    // Nothing in common with any task. A request that leans on the conversation ("ok, now also fix
    // that") continues the latest task; one that names files or symbols no task has touched starts a
    // new task; anything else is new work the router is not sure about.
    const leaning = anaphoric.test(f.body.trim()) || f.words < 8;
    if (leaning && lastTask !== null) return { task: lastTask, confidence: 0.6, method: "follow-up", newTask: false };
    return { task: null, confidence: f.keys.length + f.refs.symbols.size > 0 ? 0.75 : 0.7, method: "new", newTask: true };
  }
  const best = [...scored].sort((a, b) => b.ref + b.sim - (a.ref + a.sim))[0]!;
  return { task: best.task, confidence: 0.5, method: "ambiguous", newTask: false };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Records an assignment; a new task gets the next id (`t1`, `t2`, …). Returns the task id or null. */
export function commitAssignment(
  state: RouterState,
  group: Group,
  decision: Assignment & { newTask: boolean },
  workspace: string | null,
): Assignment {
  let task = decision.task;
  if (decision.newTask) {
    task = `t${state.next++}`;
    state.tasks.push({ id: task, workspace, label: labelOf(group.userText), groups: [] });
  }
  const a: Assignment = { task, confidence: decision.confidence, method: decision.method };
  state.assignments[group.id] = a;
  if (task !== null) {
    const info = state.tasks.find((t) => t.id === task);
    if (info && !info.groups.includes(group.id)) info.groups.push(group.id);
    if (info && info.workspace === null && workspace !== null) info.workspace = workspace;
  }
  return a;
}

export function labelOf(userText: string): string {
  const body = userText.replace(/^(Repository|Workspace):.*$/gm, "").trim().replace(/\s+/g, " ");
  return body.length > 80 ? `${body.slice(0, 77)}…` : body;
}
