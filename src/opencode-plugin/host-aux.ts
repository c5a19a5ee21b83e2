import type { PluginInput } from "@opencode-ai/plugin";
import type { AuxChat, AuxUsage } from "../rcm/aux-model.js";

export interface HostModel {
  providerID: string;
  modelID: string;
}

/** `PROVIDER/MODEL` as OpenCode's model reference. */
export function hostModelOf(ref: string): HostModel {
  const at = ref.indexOf("/");
  return { providerID: ref.slice(0, at), modelID: ref.slice(at + 1) };
}

interface HostAuxSetup {
  client: PluginInput["client"];
  directory: string;
  /** The conversation the calls are made for (their child sessions hang below it). */
  parent: string;
  /** The model to ask: the option's model, else the session's own (null until a request showed it). */
  model: () => HostModel | null;
  timeoutMs: number;
  /** Child sessions of RCM's own calls: the plugin leaves them alone. */
  own: Set<string>;
}

/** Usage of one host call in RCM's token rule: input excludes cached input, output includes reasoning. */
function usageOf(
  purpose: AuxUsage["purpose"],
  model: HostModel,
  info: { tokens?: { input?: number; output?: number; reasoning?: number; cache?: { read?: number } } },
): AuxUsage | null {
  const t = info.tokens;
  if (!t) return null;
  return {
    purpose,
    model: `${model.providerID}/${model.modelID}`,
    input_tokens: t.input ?? 0,
    output_tokens: (t.output ?? 0) + (t.reasoning ?? 0),
    cached_input_tokens: t.cache?.read ?? 0,
    reasoning_tokens: t.reasoning ?? 0,
  };
}

/**
 * The auxiliary model through OpenCode's own provider settings (no key of RCM's own): each call is a
 * prompt, without tools, in a fresh child session of the conversation, deleted afterwards. OpenCode
 * makes the model call with the provider configuration the coding model uses.
 */
export function hostAuxChat(h: HostAuxSetup): AuxChat {
  return async (purpose, system, user) => {
    const model = h.model();
    if (!model) throw new Error("auxiliary model: the session's model is not known yet");
    const created = await h.client.session.create({
      body: { parentID: h.parent, title: `switch-swe RCM ${purpose}` },
      query: { directory: h.directory },
    });
    const id = created.data?.id;
    if (!id) throw new Error("auxiliary model: OpenCode did not create a session");
    h.own.add(id);
    const timer = setTimeout(
      () => void h.client.session.abort({ path: { id }, query: { directory: h.directory } }).catch(() => undefined),
      h.timeoutMs,
    );
    try {
      const r = await h.client.session.prompt({
        path: { id },
        query: { directory: h.directory },
        body: { model, system, tools: { "*": false }, parts: [{ type: "text", text: user }] },
      });
      const data = r.data;
      if (!data) throw new Error("auxiliary model: no answer");
      const text = data.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
      return { text: data.info.error ? null : text, usage: usageOf(purpose, model, data.info) };
    } finally {
      clearTimeout(timer);
      await h.client.session.delete({ path: { id }, query: { directory: h.directory } }).catch(() => undefined);
    }
  };
}
