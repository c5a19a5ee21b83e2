import type { PluginInput } from "@opencode-ai/plugin";
import { RcmEngine } from "../rcm/engine.js";
import type { Group } from "../rcm/history.js";
import { hostAuxOf, type RcmOptions } from "../rcm/options.js";
import { hostAuxChat, hostModelOf, type HostModel } from "./host-aux.js";
import { appendAuxUsage, appendLog, loadStateFile, removeStateFiles, saveStateFile, type StateFile } from "../rcm/store.js";

export interface SessionSlot {
  engine: RcmEngine;
  /** The history as last seen by the transform (for routing a new request early). */
  history: Group[];
  last?: StateFile["last"];
  compactions: number;
  /** Set between the compacting hook and the compacted event: the compactor reads the full history. */
  compacting: boolean;
  /** The session's own model, as its latest request named it (the default auxiliary model). */
  model: HostModel | null;
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** RCM's per-session engines of one OpenCode process, with their state files and log. */
export class SessionSlots {
  private readonly slots = new Map<string, SessionSlot>();
  /** Child sessions of RCM's own auxiliary calls: every hook leaves them alone. */
  readonly own = new Set<string>();

  constructor(
    readonly options: RcmOptions,
    readonly stateDir: string,
    private readonly client: PluginInput["client"],
    private readonly directory: string = process.cwd(),
  ) {}

  /** Appends to the plugin log; errors and warnings also go to OpenCode's log (service `switch-swe-rcm`). */
  log(level: "info" | "warn" | "error", message: string): void {
    appendLog(this.stateDir, `${level} ${message}`);
    if (level === "info") return;
    void Promise.resolve()
      .then(() => this.client.app.log({ body: { service: "switch-swe-rcm", level, message } }))
      .catch(() => undefined);
  }

  /** The session's slot, loaded from its state file the first time (an unreadable file starts empty). */
  get(session: string): SessionSlot {
    const known = this.slots.get(session);
    if (known) return known;
    let saved: StateFile | null = null;
    try {
      saved = loadStateFile(this.stateDir, session);
    } catch (e) {
      this.log("error", `session ${session}: starting with empty state: ${errorText(e)}`);
    }
    const memory = saved
      ? {
          router: saved.router,
          states: saved.states,
          ...(saved.aux ? { aux: saved.aux } : {}),
          ...(saved.writes ? { writes: saved.writes } : {}),
        }
      : undefined;
    const s: SessionSlot = {
      engine: new RcmEngine(this.options, memory),
      history: [],
      compactions: saved?.compactions ?? 0,
      compacting: false,
      model: null,
      ...(saved?.last ? { last: saved.last } : {}),
    };
    const host = hostAuxOf(this.options);
    if (host) {
      const fixed = host.model ? hostModelOf(host.model) : null;
      const aux = hostAuxChat({
        client: this.client,
        directory: this.directory,
        parent: session,
        model: () => fixed ?? s.model,
        timeoutMs: host.timeoutMs ?? 60_000,
        own: this.own,
      });
      s.engine = new RcmEngine(this.options, memory, aux);
    }
    this.slots.set(session, s);
    return s;
  }

  /** Writes auxiliary usage lines, and the state file when something changed. */
  persist(session: string, s: SessionSlot): void {
    appendAuxUsage(this.stateDir, session, s.engine.drainAuxUsage());
    for (const notice of s.engine.drainNotices()) this.log("warn", `session ${session}: ${notice}`);
    if (!s.engine.takeDirty() && !s.last) return;
    saveStateFile(this.stateDir, session, this.options.mode, s.engine.memory, {
      ...(s.last ? { last: s.last } : {}),
      compactions: s.compactions,
    });
  }

  compacted(session: string): void {
    const s = this.get(session);
    s.compactions++;
    s.compacting = false;
    s.last = undefined;
    saveStateFile(this.stateDir, session, this.options.mode, s.engine.memory, { compactions: s.compactions });
  }

  deleted(session: string): void {
    this.slots.delete(session);
    removeStateFiles(this.stateDir, session);
  }
}
