import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Agent, AgentContext, AgentResult } from "../../../src/agents/types.js";
import type { AgentEvent } from "../../../src/formats/trajectory.js";
import type { WorkspaceName } from "../../../src/formats/sessions.js";

/** A session root with five workspaces, as the harness lays them out (siblings under one directory). */
export function conversationContext(root: string, conversationId: string): AgentContext {
  const names: WorkspaceName[] = ["w00", "w01", "w02", "w03", "w04"];
  const workspaces = Object.fromEntries(names.map((n) => [n, join(root, "work", n)])) as Record<WorkspaceName, string>;
  for (const p of Object.values(workspaces)) mkdirSync(p, { recursive: true });
  return {
    session: "demo.switch",
    conversationId,
    stateDir: join(root, "state"),
    logDir: join(root, "logs"),
    workspaces,
  } as unknown as AgentContext;
}

export const message = (ws: string, text: string) => `Repository: demo\nWorkspace: ${ws}\n\n${text}`;

/** Sends each message in turn through one conversation; the results and events of each. */
export async function converse(agent: Agent, ctx: AgentContext, messages: { ws: WorkspaceName; text: string; timeoutMs?: number }[]) {
  const conv = await agent.startConversation(ctx);
  const out: { result: AgentResult; events: AgentEvent[] }[] = [];
  for (const [index, m] of messages.entries()) {
    const events: AgentEvent[] = [];
    const ws = ctx.workspaces[m.ws];
    const result = await conv.send(
      {
        index,
        message: message(ws, m.text),
        workspace: m.ws,
        workspacePath: ws,
        continuation: false,
        turn: index,
        timeoutMs: m.timeoutMs ?? 180_000,
        signal: new AbortController().signal,
      },
      (e) => events.push(e),
    );
    out.push({ result, events });
  }
  await conv.close();
  return out;
}

/** Sums of the model_call events (tokens as the trajectory records them). */
export function modelCallSums(events: AgentEvent[]) {
  const calls = events.flatMap((e) => (e.kind === "model_call" ? [e] : []));
  return {
    calls: calls.length,
    input: calls.reduce((n, e) => n + e.input_tokens, 0),
    cached: calls.reduce((n, e) => n + (e.cached_input_tokens ?? 0), 0),
    cacheWrite: calls.reduce((n, e) => n + (e.cache_write_tokens ?? 0), 0),
    output: calls.reduce((n, e) => n + e.output_tokens, 0),
    reasoning: calls.reduce((n, e) => n + (e.reasoning_tokens ?? 0), 0),
    cost: calls.reduce((n, e) => n + (e.cost_usd ?? 0), 0),
  };
}
