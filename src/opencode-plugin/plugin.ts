import { fileURLToPath } from "node:url";
import type { Hooks, Plugin, PluginInput } from "@opencode-ai/plugin";
import { parseRcmOptions, resolveStateDir, type RcmOptions, type RcmOptionsInput } from "../rcm/options.js";
import type { HostModel } from "./host-aux.js";
import { stepSummary } from "../rcm/history-edits.js";
import { applyPlan, historyView, type HostMessage } from "./messages.js";
import { errorText, SessionSlots } from "./session-slots.js";

type Hook<K extends keyof Hooks> = NonNullable<Hooks[K]>;

/** The model of the latest user message (OpenCode records it on every user message). */
function sessionModel(messages: HostMessage[]): HostModel | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const info = messages[i]!.info;
    if (info.role === "user" && info.model.providerID && info.model.modelID)
      return { providerID: info.model.providerID, modelID: info.model.modelID };
  }
  return null;
}

function auxLabel(o: RcmOptions): string {
  if (typeof o.auxModel === "string") return o.auxModel;
  if ("baseURL" in o.auxModel) return `${o.auxModel.baseURL}|${o.auxModel.model}`;
  return `host:${o.auxModel.model ?? "session model"}`;
}

/** `chat.message`: routes each new request as it arrives, once per turn. */
function chatMessage(slots: SessionSlots): Hook<"chat.message"> {
  return async (hookInput, output) => {
    try {
      const text = output.parts
        .filter((p): p is Extract<typeof p, { type: "text" }> => p.type === "text" && !p.synthetic && !p.ignored)
        .map((p) => p.text)
        .join("\n");
      const id = output.message.id;
      if (text === "" || !id || slots.own.has(hookInput.sessionID)) return;
      const s = slots.get(hookInput.sessionID);
      if (hookInput.model) s.model = { providerID: hookInput.model.providerID, modelID: hookInput.model.modelID };
      // Every model step of this turn reuses the assignment. Right after a restart the router has not
      // seen the history yet: the first transform routes instead.
      if (s.history.length === 0 && s.engine.memory.router.tasks.length > 0) return;
      await s.engine.routeNew({ id, userMessageId: id, userText: text, actions: [] }, s.history);
      slots.persist(hookInput.sessionID, s);
    } catch (e) {
      slots.log("error", `chat.message: ${errorText(e)}`);
    }
  };
}

/** `experimental.chat.messages.transform`: plans what the model sees and edits `output.messages` in place. */
function messagesTransform(slots: SessionSlots): Hook<"experimental.chat.messages.transform"> {
  return async (_hookInput, output) => {
    try {
      const messages = output.messages as HostMessage[];
      const session = messages.find((m) => m.info.sessionID)?.info.sessionID;
      if (!session || slots.own.has(session)) return;
      const s = slots.get(session);
      s.model = sessionModel(messages) ?? s.model;
      // While the host compacts, the compactor reads every task's history, unfiltered.
      if (s.compacting) return;
      const view = historyView(messages);
      if (view.groups.length === 0) return;
      s.history = view.groups;
      const plan = await s.engine.prepareAsync(view.groups);
      s.last = stepSummary(view.groups, plan, applyPlan(messages, view, plan));
      slots.persist(session, s);
    } catch (e) {
      slots.log("error", `messages.transform: history left unmodified: ${errorText(e)}`);
    }
  };
}

/** `experimental.session.compacting`: the preservation instruction and every task's record. */
function sessionCompacting(slots: SessionSlots): Hook<"experimental.session.compacting"> {
  return async (hookInput, output) => {
    try {
      if (slots.own.has(hookInput.sessionID)) return;
      const s = slots.get(hookInput.sessionID);
      s.compacting = true;
      output.context.push(...s.engine.compaction());
    } catch (e) {
      slots.log("error", `session.compacting: ${errorText(e)}`);
    }
  };
}

/** `event`: counts compactions and removes state with its session. */
function sessionEvents(slots: SessionSlots): Hook<"event"> {
  return async ({ event }) => {
    try {
      if (event.type === "session.compacted") slots.compacted(event.properties.sessionID);
      else if (event.type === "session.deleted" && slots.own.delete(event.properties.info.id)) return;
      else if (event.type === "session.deleted") slots.deleted(event.properties.info.id);
    } catch (e) {
      slots.log("error", `event ${event.type}: ${errorText(e)}`);
    }
  };
}

/**
 * The RCM plugin for OpenCode 1.18.33. Options (opencode.json `["switch-swe", {...}]` or the local
 * plugin file) are `{mode, threshold, stateDir, keepRecent, batchSize, auxModel}`. Every hook catches
 * its own errors: they are logged and the history is left as OpenCode built it.
 */
export function createRcmServer(defaults: RcmOptionsInput = {}): Plugin {
  return async (input: PluginInput, pluginOptions?: Record<string, unknown>): Promise<Hooks> => {
    const options = parseRcmOptions({ ...defaults, ...(pluginOptions ?? {}) });
    const slots = new SessionSlots(options, resolveStateDir(options.stateDir, input.directory), input.client, input.directory);
    if (options.mode === "off") return {};
    slots.log(
      "info",
      `loaded: mode=${options.mode} threshold=${options.threshold} auxModel=${auxLabel(options)} stateDir=${slots.stateDir} from=${fileURLToPath(import.meta.url)}`,
    );
    return {
      "chat.message": chatMessage(slots),
      "experimental.chat.messages.transform": messagesTransform(slots),
      "experimental.session.compacting": sessionCompacting(slots),
      event: sessionEvents(slots),
    };
  };
}
