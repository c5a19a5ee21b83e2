import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import type { AgentEvent } from "../formats/trajectory.js";
import { tokenTotal } from "../formats/trajectory.js";
import type { WorkspaceName } from "../formats/sessions.js";
import { agentFactory } from "./registry.js";
import type { AgentContext, AgentRequest, AgentResult, Conversation, HarnessInfo } from "./types.js";

/** One line of `agents check`: what was checked, whether it works, and what was seen. */
export interface CheckItem {
  check: string;
  ok: boolean;
  detail: string;
}

const firstMessage = "This is a connectivity check of switch-swe. Do not use any tool. Reply with exactly one word: ready";
const secondMessage =
  "This is the second message of the same check. Do not use any tool. Repeat exactly the one word you replied with to my previous message.";

function scratchContext(root: string): AgentContext {
  const names: WorkspaceName[] = ["w00", "w01", "w02", "w03", "w04"];
  const workspaces = Object.fromEntries(names.map((n) => [n, join(root, "work", n)])) as Record<WorkspaceName, string>;
  for (const p of Object.values(workspaces)) mkdirSync(p, { recursive: true });
  return {
    session: "agents-check.base",
    conversationId: randomUUID(),
    stateDir: join(root, "state"),
    logDir: join(root, "logs"),
    workspaces,
    attempt: 1,
    runSeed: 0,
  } as unknown as AgentContext;
}

async function send(
  conv: Conversation,
  ctx: AgentContext,
  index: number,
  text: string,
  timeoutMs: number,
): Promise<{ result: AgentResult; events: AgentEvent[] }> {
  const events: AgentEvent[] = [];
  const req: AgentRequest = {
    index,
    message: text,
    workspace: "w00",
    workspacePath: ctx.workspaces.w00,
    continuation: false,
    turn: index,
    timeoutMs,
    signal: new AbortController().signal,
  };
  const result = await conv.send(req, (e) => events.push(e));
  return { result, events };
}

function usageLine(events: AgentEvent[]): string {
  const calls = events.flatMap((e) => (e.kind === "model_call" ? [e] : []));
  const tokens = calls.reduce((n, e) => n + tokenTotal(e), 0);
  const cost = calls.reduce((n, e) => n + (e.cost_usd ?? 0), 0);
  return `${calls.length} model call(s), ${tokens} tokens${cost > 0 ? `, $${cost.toFixed(4)}` : ""}`;
}

const replyText = (events: AgentEvent[]) =>
  events
    .flatMap((e) => (e.kind === "text" ? [e.text] : []))
    .join(" ")
    .trim();

/**
 * `switch-swe agents check`: the agent's options are checked (bad input throws), then one tiny
 * request and one resumed request go through the user's real configuration, in scratch workspaces.
 */
export async function checkAgent(
  name: string,
  options: Record<string, string>,
  timeoutMs = 180_000,
): Promise<{ harness: HarnessInfo | null; items: CheckItem[] }> {
  const factory = agentFactory(name);
  const agent = factory.create(factory.parse(options));
  const items: CheckItem[] = [];
  const harness = agent.describe ? await agent.describe() : null;
  items.push({
    check: "cli",
    ok: harness === null || harness.version !== null,
    detail: harness ? `${harness.name} ${harness.version ?? "(no version reported)"} at ${harness.binary ?? "?"}` : `${name} (no CLI)`,
  });
  const root = mkdtempSync(join(tmpdir(), "switch-swe-check-"));
  try {
    const ctx = scratchContext(root);
    const conv = await agent.startConversation(ctx);
    const first = await send(conv, ctx, 0, firstMessage, timeoutMs);
    const calls = first.events.filter((e) => e.kind === "model_call");
    items.push({
      check: "model",
      ok: first.result.outcome === "yielded",
      detail:
        first.result.outcome === "yielded"
          ? `answered: ${JSON.stringify(replyText(first.events).slice(0, 80))}`
          : `${first.result.outcome}: ${first.result.detail ?? ""}`,
    });
    items.push({
      check: "events",
      ok: first.events.length > 0,
      detail: `${first.events.length} event(s): ${[...new Set(first.events.map((e) => e.kind))].join(", ") || "none"}`,
    });
    items.push({
      check: "usage",
      ok: calls.length > 0 && calls.some((e) => e.kind === "model_call" && tokenTotal(e) > 0),
      detail: usageLine(first.events),
    });
    if (first.result.outcome === "yielded") {
      const second = await send(conv, ctx, 1, secondMessage, timeoutMs);
      const reply = replyText(second.events);
      const ok = second.result.outcome === "yielded";
      items.push({
        check: "resume",
        ok,
        detail: ok
          ? `second request answered in the same conversation${/ready/i.test(reply) ? " (the model recalled the first answer)" : ` (reply: ${JSON.stringify(reply.slice(0, 80))})`}; ${usageLine(second.events)}`
          : `${second.result.outcome}: ${second.result.detail ?? ""}`,
      });
    }
    await conv.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { harness, items };
}
