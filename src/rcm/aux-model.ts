import type { Group } from "./history.js";
import type { TaskInfo } from "./router.js";
import type { AuxEndpoint } from "./options.js";
import { clip, requestBody } from "./state-updater.js";

/** Usage of one auxiliary call, in the project's token rule (input excludes cached input). */
export interface AuxUsage {
  purpose: "route" | "state";
  model: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
}

export interface AuxRouteDecision {
  /** A task id, "new" or "shared". */
  task: string;
  confidence: number;
}

/** One auxiliary model call: the answer's text (null when there is none) and its usage. */
export interface AuxReply {
  text: string | null;
  usage: AuxUsage | null;
}

/**
 * How RCM reaches its auxiliary model: an endpoint of its own (`endpointChat`) or the host's own
 * provider (the OpenCode plugin's `hostAuxChat`). It may throw; callers treat that as no answer.
 */
export type AuxChat = (purpose: AuxUsage["purpose"], system: string, user: string) => Promise<AuxReply>;

/** An auxiliary model behind an OpenAI-compatible endpoint (`POST {baseURL}/chat/completions`). */
export function endpointChat(cfg: AuxEndpoint): AuxChat {
  return async (purpose, system, user) => {
    const key = cfg.apiKey ?? (cfg.apiKeyEnv ? process.env[cfg.apiKeyEnv] : undefined);
    const res = await fetch(`${cfg.baseURL.replace(/\/+$/, "")}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({
        model: cfg.model,
        messages: [
          { role: "system", content: system },
          { role: "user", content: user },
        ],
        response_format: { type: "json_object" },
        temperature: 0,
        stream: false,
      }),
      signal: AbortSignal.timeout(cfg.timeoutMs ?? 30_000),
    });
    if (!res.ok) throw new Error(`auxiliary model: HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
    const body: unknown = await res.json();
    const r = chatCompletionReply(body);
    const usage: AuxUsage | null = r
      ? {
          purpose,
          model: cfg.model,
          input_tokens: r.input,
          output_tokens: r.output,
          cached_input_tokens: r.cached,
          reasoning_tokens: r.reasoning,
        }
      : null;
    return { text: r?.text ?? null, usage };
  };
}

const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);
const field = (o: unknown, k: string): unknown =>
  o !== null && typeof o === "object" && !Array.isArray(o) ? (o as Record<string, unknown>)[k] : undefined;

/** An OpenAI chat completion's text and tokens in RCM's rule (input excludes cached input); null without usage. */
export function chatCompletionReply(
  body: unknown,
): { text: string | null; input: number; cached: number; output: number; reasoning: number } | null {
  const u = field(body, "usage");
  const choices = field(body, "choices");
  const content = field(field(Array.isArray(choices) ? choices[0] : undefined, "message"), "content");
  const text = typeof content === "string" ? content : null;
  if (u === undefined || u === null || typeof u !== "object") return null;
  const cached = count(field(field(u, "prompt_tokens_details"), "cached_tokens"));
  return {
    text,
    input: Math.max(0, count(field(u, "prompt_tokens")) - cached),
    cached,
    output: count(field(u, "completion_tokens")),
    reasoning: count(field(field(u, "completion_tokens_details"), "reasoning_tokens")),
  };
}

/** The first JSON object in a model's answer, or null. */
function jsonOf(text: string | null): unknown {
  const m = text === null ? null : /\{[\s\S]*\}/.exec(text);
  try {
    return m ? JSON.parse(m[0]) : null;
  } catch {
    return null;
  }
}

async function chatJson(
  chat: AuxChat,
  purpose: AuxUsage["purpose"],
  system: string,
  user: string,
): Promise<{ json: unknown; usage: AuxUsage | null }> {
  const r = await chat(purpose, system, user);
  return { json: jsonOf(r.text), usage: r.usage };
}

const routeSystem =
  'You route a new user request of a coding-agent conversation to the task it continues. Tasks are listed with an id, a workspace and their requests. Answer only JSON: {"task": "<task id>" | "new" | "shared", "confidence": <0..1>}. "shared" means an instruction for every task.';

/** Asks the auxiliary model which task a request continues. Null when the answer is unusable. */
export async function auxRoute(
  chat: AuxChat,
  tasks: readonly TaskInfo[],
  groupsById: ReadonlyMap<string, Group>,
  request: string,
): Promise<{ decision: AuxRouteDecision | null; usage: AuxUsage | null }> {
  const listing = tasks
    .map((t) => {
      const reqs = t.groups
        .slice(-3)
        .map((id) => groupsById.get(id))
        .filter((g): g is Group => g !== undefined);
      return `Task ${t.id}${t.workspace ? ` (workspace ${t.workspace})` : ""}:\n${reqs.map((g) => `  - ${clip(requestBody(g.userText), 400)}`).join("\n") || `  - ${t.label}`}`;
    })
    .join("\n");
  const r = await chatJson(chat, "route", routeSystem, `${listing}\n\nNew request:\n${clip(request, 3000)}`);
  const j = r.json as { task?: unknown; confidence?: unknown } | null;
  const ids = new Set(tasks.map((t) => t.id));
  if (!j || typeof j.task !== "string" || typeof j.confidence !== "number") return { decision: null, usage: r.usage };
  if (!ids.has(j.task) && j.task !== "new" && j.task !== "shared") return { decision: null, usage: r.usage };
  return { decision: { task: j.task, confidence: Math.max(0, Math.min(1, j.confidence)) }, usage: r.usage };
}
