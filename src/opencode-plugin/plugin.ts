import type { Hooks, Plugin, PluginInput } from "@opencode-ai/plugin";
import type { Group } from "../rcm/history.js";
import { RcmEngine } from "../rcm/engine.js";
import { parseRcmOptions, resolveStateDir, type RcmOptions, type RcmOptionsInput } from "../rcm/options.js";
import { appendAuxUsage, appendLog, loadStateFile, removeStateFiles, saveStateFile, type StateFile } from "../rcm/store.js";
import { applyPlan, historyView, type HostMessage } from "./messages.js";

interface SessionSlot {
  engine: RcmEngine;
  /** The history as last seen by the transform (for routing a new request early). */
  history: Group[];
  last?: StateFile["last"];
  compactions: number;
}

/**
 * The RCM plugin for OpenCode 1.18.33. Options (opencode.json `["switch-swe/opencode-plugin", {...}]`
 * or the local plugin file) are `{mode, threshold, stateDir, keepRecent, batchSize, auxModel}`.
 * Every hook catches its own errors: they are logged and the history is left as OpenCode built it.
 */
export function createRcmServer(defaults: RcmOptionsInput = {}): Plugin {
  return async (input: PluginInput, pluginOptions?: Record<string, unknown>): Promise<Hooks> => {
    const options: RcmOptions = parseRcmOptions({ ...defaults, ...(pluginOptions ?? {}) });
    const stateDir = resolveStateDir(options.stateDir, input.directory);
    const slots = new Map<string, SessionSlot>();

    const log = (level: "info" | "error", message: string) => {
      appendLog(stateDir, `${level} ${message}`);
      if (level === "error") {
        void Promise.resolve()
          .then(() => input.client.app.log({ body: { service: "switch-swe-rcm", level, message } }))
          .catch(() => undefined);
      }
    };
    const slot = (session: string): SessionSlot => {
      let s = slots.get(session);
      if (s) return s;
      let saved: StateFile | null = null;
      try {
        saved = loadStateFile(stateDir, session);
      } catch (e) {
        log("error", `session ${session}: starting with empty state: ${errorText(e)}`);
      }
      s = {
        engine: new RcmEngine(options, saved ? { router: saved.router, states: saved.states } : undefined),
        history: [],
        compactions: saved?.compactions ?? 0,
        ...(saved?.last ? { last: saved.last } : {}),
      };
      slots.set(session, s);
      return s;
    };
    const persist = (session: string, s: SessionSlot) => {
      appendAuxUsage(stateDir, session, s.engine.drainAuxUsage());
      if (!s.engine.takeDirty() && !s.last) return;
      saveStateFile(stateDir, session, options.mode, s.engine.memory, { ...(s.last ? { last: s.last } : {}), compactions: s.compactions });
    };

    if (options.mode === "off") return {};
    log("info", `loaded: mode=${options.mode} threshold=${options.threshold} stateDir=${stateDir}`);

    return {
      "chat.message": async (hookInput, output) => {
        try {
          const text = output.parts
            .filter((p): p is Extract<typeof p, { type: "text" }> => p.type === "text" && !p.synthetic && !p.ignored)
            .map((p) => p.text)
            .join("\n");
          const id = output.message.id;
          if (text === "" || !id) return;
          const s = slot(hookInput.sessionID);
          // Route now, once per turn; every model step of this turn reuses the assignment. Right after
          // a restart the router has not seen the history yet: the first transform routes instead.
          if (s.history.length === 0 && s.engine.memory.router.tasks.length > 0) return;
          await s.engine.routeNew({ id, userMessageId: id, userText: text, actions: [] }, s.history);
          persist(hookInput.sessionID, s);
        } catch (e) {
          log("error", `chat.message: ${errorText(e)}`);
        }
      },
      "experimental.chat.messages.transform": async (_hookInput, output) => {
        try {
          const messages = output.messages as HostMessage[];
          const session = messages.find((m) => m.info.sessionID)?.info.sessionID;
          if (!session) return;
          const s = slot(session);
          const view = historyView(messages);
          if (view.groups.length === 0) return;
          s.history = view.groups;
          const plan = await s.engine.prepareAsync(view.groups);
          const changed = applyPlan(messages, view, plan);
          s.last = {
            group: view.groups[view.groups.length - 1]!.id,
            active: plan.active,
            confidence: plan.confidence,
            filtered: plan.filtered,
            dropped: plan.treatments.filter((t) => t === "dropped").length,
            elided: changed.elided,
            record_chars: plan.record?.length ?? 0,
          };
          persist(session, s);
        } catch (e) {
          log("error", `messages.transform: history left unmodified: ${errorText(e)}`);
        }
      },
      "experimental.session.compacting": async (hookInput, output) => {
        try {
          output.context.push(...slot(hookInput.sessionID).engine.compaction());
        } catch (e) {
          log("error", `session.compacting: ${errorText(e)}`);
        }
      },
      event: async ({ event }) => {
        try {
          if (event.type === "session.compacted") {
            const s = slot(event.properties.sessionID);
            s.compactions++;
            s.last = undefined;
            saveStateFile(stateDir, event.properties.sessionID, options.mode, s.engine.memory, { compactions: s.compactions });
          } else if (event.type === "session.deleted") {
            slots.delete(event.properties.info.id);
            removeStateFiles(stateDir, event.properties.info.id);
          }
        } catch (e) {
          log("error", `event ${event.type}: ${errorText(e)}`);
        }
      },
    };
  };
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
