import { planAssembly, type AssemblyPlan } from "./assembly.js";
import { auxAllowed, budgetNotice, chargeAux, noAuxSpent, type AuxSpent } from "./aux-budget.js";
import { auxRoute, endpointChat, type AuxChat, type AuxUsage } from "./aux-model.js";
import { compactionContext } from "./compaction.js";
import type { Group } from "./history.js";
import { endpointAuxOf, hostAuxOf, type RcmOptions } from "./options.js";
import { commitAssignment, emptyRouterState, routeRequest, settled, type Assignment, type RouterState } from "./router.js";
import { requestFeatures, RouterIndex } from "./router-index.js";
import { taskRelatedness } from "./router-score.js";
import { emptyTaskState, type TaskState } from "./state-record.js";
import { foldGroup } from "./state-updater.js";
import type { StateWrite } from "../formats/rcm-state-write.js";
import { citableMessages, stateBatches, writeStateBatch } from "./state-writer.js";

/** What RCM keeps per conversation; plain JSON (persisted by the host, see store.ts). */
export interface RcmMemory {
  router: RouterState;
  states: Record<string, TaskState>;
  /** Auxiliary calls spent in this conversation (absent until the first). */
  aux?: AuxSpent;
  /** Model-written state: batches written by the model, batches left extractive, model items dropped, the latest writes. */
  writes?: StateWrites;
}

export interface StateWrites {
  model: number;
  extractive: number;
  dropped: number;
  /** The newest writes (at most 20), for people reading the state file. */
  recent: StateWrite[];
}

/**
 * RCM for one conversation. Hosts call `prepare` before every model step with the history as groups
 * (the last group is the current request): new requests are routed once and the assignment is kept
 * for the turn, completed groups are folded into state records in bounded batches, and the plan says
 * what the model should see.
 */
export class RcmEngine {
  readonly memory: RcmMemory;
  private readonly index = new RouterIndex();
  private auxUsage: AuxUsage[] = [];
  private notices: string[] = [];
  private stateWrites: StateWrite[] = [];
  private readonly aux: AuxChat | null;
  /** Groups known to be folded (a cache of every record's `covered`). */
  private readonly folded = new Set<string>();
  /** Set whenever memory changed since the last `takeDirty`. */
  private dirty = false;

  constructor(
    readonly options: RcmOptions,
    memory?: RcmMemory,
    /** The auxiliary model as the host reaches it; default: the endpoint of the auxModel option, if any. */
    aux?: AuxChat | null,
  ) {
    this.memory = memory ?? { router: emptyRouterState(), states: {} };
    const endpoint = endpointAuxOf(options);
    this.aux = aux !== undefined ? aux : endpoint ? endpointChat(endpoint) : null;
  }

  /**
   * Who writes the task records: the auxiliary model (mode rcm, the auxModel option's stateUpdates, an
   * auxiliary model to ask), else the deterministic updater alone. Offline replays (`prepare`) are
   * extractive whatever this says.
   */
  get stateWriter(): "model" | "extractive" {
    const wanted = (endpointAuxOf(this.options) ?? hostAuxOf(this.options))?.stateUpdates === true;
    return wanted && this.aux !== null && this.options.mode === "rcm" ? "model" : "extractive";
  }

  /** State writes since the last call (the proxy logs them with the request that made them). */
  drainStateWrites(): StateWrite[] {
    const out = this.stateWrites;
    this.stateWrites = [];
    return out;
  }

  /**
   * One auxiliary call within the session's budget: null when there is no auxiliary model, the budget
   * is spent (said once, in `drainNotices`), or the call failed. Usage is recorded either way.
   */
  private async withAux<T extends { usage: AuxUsage | null }>(call: (chat: AuxChat) => Promise<T>): Promise<T | null> {
    if (!this.aux) return null;
    const spent = (this.memory.aux ??= noAuxSpent());
    if (!auxAllowed(spent, this.options.auxBudget)) {
      if (!spent.exhausted) {
        spent.exhausted = true;
        this.notices.push(budgetNotice(spent, this.options.auxBudget));
        this.dirty = true;
      }
      return null;
    }
    const r = await call(this.aux).catch(() => null);
    chargeAux(spent, r?.usage ?? null);
    if (r?.usage) this.auxUsage.push(r.usage);
    this.dirty = true;
    return r;
  }

  /** Sync routing and assembly, without any auxiliary model (offline evaluation, benchmarks). */
  prepare(groups: readonly Group[]): AssemblyPlan {
    this.syncIndex(groups);
    for (const g of groups) if (!this.memory.router.assignments[g.id]) this.routeOne(g, groups);
    this.foldCompleted(groups);
    return this.plan(groups);
  }

  /** Like prepare, and asks the auxiliary model (when configured) about undecided requests and for state items. */
  async prepareAsync(groups: readonly Group[]): Promise<AssemblyPlan> {
    this.syncIndex(groups);
    for (const g of groups) {
      if (this.memory.router.assignments[g.id]) continue;
      await this.routeOneAsync(g, groups);
    }
    if (this.stateWriter === "model") await this.writeState(groups);
    else this.foldCompleted(groups);
    return this.plan(groups);
  }

  /** Routes a request as soon as it arrives (before its first model step); the result is cached for the turn. */
  async routeNew(group: Group, history: readonly Group[]): Promise<Assignment> {
    const known = this.memory.router.assignments[group.id];
    if (known) return known;
    this.syncIndex(history);
    return this.routeOneAsync(group, [...history, group]);
  }

  compaction(): string[] {
    return compactionContext(this.options.mode === "rcm" ? "rcm" : "router", this.memory.router, this.memory.states);
  }

  /** Usage of auxiliary model calls since the last call (the host records it). */
  drainAuxUsage(): AuxUsage[] {
    const out = this.auxUsage;
    this.auxUsage = [];
    return out;
  }

  /** Messages for the host's log since the last call (such as the budget running out, said once). */
  drainNotices(): string[] {
    const out = this.notices;
    this.notices = [];
    return out;
  }

  takeDirty(): boolean {
    const d = this.dirty;
    this.dirty = false;
    return d;
  }

  /** Tasks related to the current request's task (their history stays too). */
  private relatedTo(groups: readonly Group[]): string[] {
    const current = groups[groups.length - 1];
    const a = current ? this.memory.router.assignments[current.id] : undefined;
    if (!a?.task || this.options.related >= 1) return [];
    const active = a.task;
    return this.memory.router.tasks
      .filter((t) => t.id !== active && taskRelatedness(this.index, active, t.id) >= this.options.related)
      .map((t) => t.id);
  }

  private plan(groups: readonly Group[]): AssemblyPlan {
    return planAssembly({
      related: this.relatedTo(groups),
      mode: this.options.mode,
      threshold: this.options.threshold,
      keepRecent: this.options.keepRecent,
      groups,
      assignments: this.memory.router.assignments,
      states: this.memory.states,
    });
  }

  private syncIndex(groups: readonly Group[]): void {
    for (const g of groups) {
      const a = this.memory.router.assignments[g.id];
      if (a?.task) this.index.add(g, a.task, this.workspaceOf(a.task));
    }
  }

  private workspaceOf(task: string): string | null {
    return this.memory.router.tasks.find((t) => t.id === task)?.workspace ?? null;
  }

  private lastTask(groups: readonly Group[], before: string): string | null {
    const at = groups.findIndex((g) => g.id === before);
    for (let i = (at < 0 ? groups.length : at) - 1; i >= 0; i--) {
      const t = this.memory.router.assignments[groups[i]!.id]?.task;
      if (t) return t;
    }
    return null;
  }

  private decide(g: Group, groups: readonly Group[]) {
    const f = requestFeatures(g.userText);
    return { f, decision: routeRequest(this.memory.router, this.index, f, this.lastTask(groups, g.id)) };
  }

  private commit(g: Group, f: ReturnType<typeof requestFeatures>, decision: Parameters<typeof commitAssignment>[2]): Assignment {
    const a = commitAssignment(this.memory.router, g, decision, f.refs.workspace, this.options.threshold);
    if (a.task) this.index.add(g, a.task, this.workspaceOf(a.task), f);
    this.dirty = true;
    return a;
  }

  private routeOne(g: Group, groups: readonly Group[]): Assignment {
    const { f, decision } = this.decide(g, groups);
    return this.commit(g, f, decision);
  }

  private async routeOneAsync(g: Group, groups: readonly Group[]): Promise<Assignment> {
    const { f, decision } = this.decide(g, groups);
    if (this.aux && decision.confidence < this.options.threshold && this.memory.router.tasks.length > 0) {
      const byId = new Map(groups.map((x) => [x.id, x]));
      const r = await this.withAux((chat) => auxRoute(chat, this.memory.router.tasks, byId, g.userText));
      const d = r?.decision;
      if (d && d.confidence >= this.options.threshold) {
        const newTask = d.task === "new";
        return this.commit(g, f, {
          task: newTask || d.task === "shared" ? null : d.task,
          confidence: d.confidence,
          method: "aux",
          newTask,
        });
      }
    }
    return this.commit(g, f, decision);
  }

  /** Completed, confidently routed groups not yet folded, oldest first; at most batchSize per model step. */
  private dueForFolding(groups: readonly Group[]): Group[] {
    if (this.options.mode !== "rcm") return [];
    const due: Group[] = [];
    for (let i = 0; i < groups.length - 1 && due.length < this.options.batchSize; i++) {
      const g = groups[i]!;
      if (this.folded.has(g.id)) continue;
      const a = this.memory.router.assignments[g.id];
      if (!a?.task || !settled(a, this.options.threshold)) continue;
      const s = this.stateOf(a.task);
      if (s.covered.includes(g.id)) this.folded.add(g.id);
      else due.push(g);
    }
    return due;
  }

  private stateOf(task: string): TaskState {
    return (this.memory.states[task] ??= emptyTaskState(task, this.workspaceOf(task)));
  }

  private foldOne(g: Group): TaskState {
    const s = this.stateOf(this.memory.router.assignments[g.id]!.task!);
    foldGroup(s, g);
    this.folded.add(g.id);
    this.dirty = true;
    return s;
  }

  /** Folds completed groups into their records deterministically (extractive state). */
  private foldCompleted(groups: readonly Group[]): void {
    for (const g of this.dueForFolding(groups)) this.foldOne(g);
  }

  /**
   * Model-written state: each task's due groups in bounded batches (stateBatches); each batch is folded
   * deterministically first, then the model's checked items replace the batch's extractive ones. A batch
   * the model could not write (no usable answer, a failed call, the budget spent) stays extractive, and
   * the write says why.
   */
  private async writeState(groups: readonly Group[]): Promise<void> {
    const due = this.dueForFolding(groups);
    if (due.length === 0) return;
    const byTask = new Map<string, Group[]>();
    for (const g of due) {
      const task = this.memory.router.assignments[g.id]!.task!;
      byTask.set(task, [...(byTask.get(task) ?? []), g]);
    }
    const messages = citableMessages(groups, this.memory.router.assignments);
    for (const [task, list] of byTask) {
      for (const batch of stateBatches(list, this.options.batchSize)) {
        for (const g of batch) this.foldOne(g);
        const s = this.stateOf(task);
        const r = await this.withAux((chat) => writeStateBatch(chat, s, batch, messages));
        const reason = this.memory.aux?.exhausted ? "auxiliary model budget used up" : "auxiliary call failed";
        this.recordWrite(r?.write ?? { task, groups: batch.map((g) => g.id), by: "extractive", reason });
      }
    }
  }

  private recordWrite(w: StateWrite): void {
    const m = (this.memory.writes ??= { model: 0, extractive: 0, dropped: 0, recent: [] });
    m[w.by]++;
    m.dropped += w.dropped?.length ?? 0;
    m.recent.push(w);
    if (m.recent.length > 20) m.recent.shift();
    this.stateWrites.push(w);
    this.dirty = true;
  }
}
