import { join } from "node:path";
import { inputError } from "../core/errors.js";
import { createAgent } from "../agents/registry.js";
import type { Agent, AgentContext, Conversation } from "../agents/types.js";
import type { RcmMode } from "../rcm/history.js";
import { startRcmProxy, type RcmProxy, type RcmStateKind } from "../rcm/proxy/server.js";
import { auxModelCall } from "../agents/event-helpers.js";
import { saveStateFile } from "../rcm/store.js";

/** The conversation's RCM memory, kept with the session's logs (`rcm-state.json`, the plugin's state file format). */
function saveMemory(proxy: RcmProxy, mode: RcmMode, logDir: string): void {
  // One engine may stand for several keys (a conversation the host compacted): each is saved once.
  const engines = [...new Set(proxy.engines().values())];
  const main = engines.sort((a, b) => Object.keys(b.memory.router.assignments).length - Object.keys(a.memory.router.assignments).length)[0];
  if (main) saveStateFile(logDir, "rcm-state", mode, main.memory, { compactions: 0 });
}

/**
 * `run --rcm MODE`: the agent, with an RCM proxy of its own in front of its model endpoint for each
 * conversation. The proxy's upstream is the agent's `base_url`; the agent is given the proxy's address
 * (same path) as its `base_url`, so every model request passes through RCM. After each request the
 * proxy's log entries go into the trajectory as `context` events (and `rcm-proxy.jsonl` of the attempt's
 * agent logs), and RCM's auxiliary calls as auxiliary `model_call` events; the memory is saved there as
 * `rcm-state.json` when the conversation ends.
 */
export function rcmProxiedAgent(name: string, options: Record<string, string>, mode: RcmMode, state: RcmStateKind = "extractive"): Agent {
  const upstream = options.base_url;
  if (upstream === undefined)
    throw inputError("--rcm", "", `needs the agent's model endpoint to stand in front of: give --agent-opt base_url=URL`);
  // Checks the options (and finds the CLI) now, before the run starts, and answers describe().
  const agent = createAgent(name, options);
  return {
    name: agent.name,
    // What the conversation reaches, through the proxy (run.json's allowed endpoints).
    ...(agent.endpoints ? { endpoints: agent.endpoints } : {}),
    ...(agent.describe ? { describe: () => agent.describe!() } : {}),
    async startConversation(ctx: AgentContext): Promise<Conversation> {
      // The auxiliary model is the agent's own upstream model (aux-upstream.ts), within the default budget.
      const proxy = await startRcmProxy({ upstream, mode, state, single: true, logFile: join(ctx.logDir, "rcm-proxy.jsonl") });
      let inner: Conversation;
      try {
        // Under --network model the agent reaches only the allowed endpoints: the proxy, on loopback, is
        // let in for this conversation; the proxy (outside the sandbox) alone reaches the upstream.
        await ctx.sandbox?.egress?.allowLoopback(proxy.baseURL);
        inner = await createAgent(name, { ...options, base_url: proxy.baseURL }).startConversation(ctx);
      } catch (e) {
        await proxy.close();
        throw e;
      }
      return {
        async send(request, onEvent) {
          const seen = proxy.entries().length;
          try {
            return await inner.send(request, onEvent);
          } finally {
            for (const entry of proxy.entries().slice(seen)) onEvent({ kind: "context", entry });
            // RCM's own model calls are the session's usage too (auxiliary model_call events, as the plugin's).
            for (const engine of new Set(proxy.engines().values())) for (const u of engine.drainAuxUsage()) onEvent(auxModelCall(u));
          }
        },
        async close() {
          try {
            await inner.close();
          } finally {
            saveMemory(proxy, mode, ctx.logDir);
            await proxy.close();
          }
        },
      };
    },
  };
}
