import { appendFileSync, mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { dirname } from "node:path";
import { closeServer, listenOnLoopback } from "../core/loopback-server.js";
import { estimateTokens, writeJson, type Answer, type Protocol, type RequestFacts } from "./answer.js";
import { anthropicCountTokens, anthropicMessages } from "./anthropic-messages.js";
import { geminiCountTokens, geminiGenerate } from "./gemini.js";
import { openaiChat } from "./openai-chat.js";
import { openaiResponses } from "./openai-responses.js";
import { fillTemplate, pickTurn, type Script } from "./script.js";
import { contextBoundAnswer, type KnownAnswers } from "./context-bound.js";

/** One request the server received, as recorded (one JSON line each in the record file). */
export interface RecordedRequest {
  seq: number;
  time: string;
  method: string;
  path: string;
  /** The protocol that answered (openai-chat, anthropic-messages, openai-responses, gemini, …), if any. */
  protocol?: string;
  /** Index of the script turn that answered, or null for the fallback (or a request that is not a model call). */
  turn: number | null;
  /** The usage the server reported in the answer (absent for errors and non-model requests). */
  usage?: Answer["usage"];
  body: unknown;
}

export interface MockModelOptions {
  script: Script;
  /** 0 picks a free port. */
  port?: number;
  /** Every request is appended here as one JSON line. */
  recordFile?: string;
  /** The context-bound model (context-bound.ts): answers every model request from this table instead of the script's turns. */
  knownAnswers?: KnownAnswers;
}

export interface MockModelServer {
  port: number;
  /** `http://127.0.0.1:PORT/v1`, the base URL for OpenAI-compatible clients. */
  baseURL: string;
  /** `http://127.0.0.1:PORT`, the base URL for Anthropic and Gemini clients (they add their own path). */
  origin: string;
  requests(): RecordedRequest[];
  /** Indexes of the script turns not used yet. */
  unusedTurns(): number[];
  close(): Promise<void>;
}

const maxBodyBytes = 64 * 1024 * 1024;

/** Count-token endpoints first: their paths end like the generating ones. */
const protocols: readonly Protocol[] = [
  anthropicCountTokens,
  geminiCountTokens,
  openaiChat,
  anthropicMessages,
  openaiResponses,
  geminiGenerate,
];

function modelList(script: Script, path: string): unknown {
  if (path.includes("/v1beta/"))
    return {
      models: script.models.map((id) => ({ name: `models/${id}`, displayName: id, supportedGenerationMethods: ["generateContent"] })),
    };
  return {
    object: "list",
    data: script.models.map((id) => ({ id, object: "model", type: "model", created: 0, display_name: id, owned_by: "switch-swe" })),
  };
}

/** The answer a turn (or the fallback) gives, with the usage the script names or an estimate. */
function answerOf(script: Script, facts: RequestFacts, turn: Script["turns"][number] | undefined, vars: Record<string, string>): Answer {
  const text = turn ? fillTemplate(turn.text ?? "", vars) : script.fallback;
  const toolCalls = turn?.tool_calls ? fillTemplate(turn.tool_calls, vars) : [];
  const u = turn?.usage ?? {};
  return {
    model: facts.model ?? script.models[0] ?? "mock",
    text,
    toolCalls,
    usage: {
      inputTokens: u.prompt_tokens ?? estimateTokens(JSON.stringify(facts.prompt) ?? ""),
      outputTokens: u.completion_tokens ?? estimateTokens(text + JSON.stringify(toolCalls.map((c) => c.arguments))),
      cachedTokens: u.cached_tokens ?? 0,
      cacheWriteTokens: u.cache_write_tokens ?? 0,
      reasoningTokens: u.reasoning_tokens ?? 0,
    },
  };
}

/** A request as recorded: its body parsed as JSON when it is JSON, kept as text otherwise. */
async function readEntry(req: IncomingMessage, seq: number): Promise<{ entry: RecordedRequest; body: unknown }> {
  const path = (req.url ?? "/").split("?")[0]!;
  const method = req.method ?? "GET";
  const raw = await readBody(req);
  let body: unknown = raw;
  try {
    body = raw === "" ? null : JSON.parse(raw);
  } catch {
    // recorded as text
  }
  return { entry: { seq, time: new Date().toISOString(), method, path, turn: null, body }, body };
}

/**
 * A scripted model on 127.0.0.1 that speaks OpenAI chat completions, OpenAI Responses, Anthropic
 * Messages and Gemini generateContent (each streamed as the real API streams it, usage in the
 * protocol's own fields), and lists models. Answers come from the script's turns in order (see
 * pickTurn), whatever the protocol; every request body is kept and optionally appended to a JSONL file.
 */
export async function startMockModel(opts: MockModelOptions): Promise<MockModelServer> {
  const { script } = opts;
  const used = new Set<number>();
  const recorded: RecordedRequest[] = [];
  let seq = 0;
  if (opts.recordFile) mkdirSync(dirname(opts.recordFile), { recursive: true });

  const record = (r: RecordedRequest) => {
    recorded.push(r);
    if (opts.recordFile) appendFileSync(opts.recordFile, `${JSON.stringify(r)}\n`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const { entry, body } = await readEntry(req, seq++);
    const { method, path } = entry;
    if (method === "GET" && /\/models$/.test(path)) {
      record(entry);
      return writeJson(res, 200, modelList(script, path));
    }
    const protocol = protocols.find((p) => p.accepts(method, path));
    if (!protocol) {
      record(entry);
      return writeJson(res, 404, { error: { message: `not found: ${method} ${path}`, type: "invalid_request_error" } });
    }
    entry.protocol = protocol.name;
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      record(entry);
      return protocol.error(res, 400, "body must be a JSON object");
    }
    const facts = protocol.view(body as Record<string, unknown>, path);
    if (protocol.kind === "count") {
      record(entry);
      return protocol.respond(res, answerOf(script, facts, undefined, {}), String(entry.seq), facts);
    }
    if (opts.knownAnswers) {
      const bound = contextBoundAnswer(opts.knownAnswers, facts);
      if (bound.tooLong) {
        record(entry);
        return protocol.error(res, 400, bound.tooLong);
      }
      const answer = answerOf(
        script,
        facts,
        { text: bound.text, tool_calls: bound.toolCalls, requests: "any", usage: { prompt_tokens: bound.inputTokens } },
        {},
      );
      entry.usage = answer.usage;
      record(entry);
      return protocol.respond(res, answer, String(entry.seq), facts);
    }
    const picked = pickTurn(script, used, facts);
    if (picked) used.add(picked.index);
    entry.turn = picked?.index ?? null;
    const turn = picked ? script.turns[picked.index]! : undefined;
    const answer = answerOf(script, facts, turn, picked?.vars ?? {});
    if (!turn?.error) entry.usage = answer.usage;
    record(entry);
    if (turn?.delay_ms) await new Promise((r) => setTimeout(r, turn.delay_ms));
    if (turn?.error) return protocol.error(res, turn.error.status, turn.error.message);
    protocol.respond(res, answer, String(entry.seq), facts);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) writeJson(res, 500, { error: { message: String(e), type: "mock_error" } });
      else res.end();
    });
  });
  const port = await listenOnLoopback(server, opts.port ?? 0);
  return {
    port,
    baseURL: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    requests: () => [...recorded],
    unusedTurns: () => script.turns.map((_, i) => i).filter((i) => !used.has(i)),
    close: () => closeServer(server),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > maxBodyBytes) {
        reject(new Error("request body too large"));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
