import { appendFileSync, mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { completionBody, contentText, estimateTokens, streamChunks, type Answer } from "./completion.js";
import { fillTemplate, pickTurn, type Script } from "./script.js";

/** One request the server received, as recorded (one JSON line each in the record file). */
export interface RecordedRequest {
  seq: number;
  time: string;
  method: string;
  path: string;
  /** Index of the script turn that answered, or null for the fallback (or a non-completion request). */
  turn: number | null;
  body: unknown;
}

export interface MockModelOptions {
  script: Script;
  /** 0 picks a free port. */
  port?: number;
  /** Every request is appended here as one JSON line. */
  recordFile?: string;
}

export interface MockModelServer {
  port: number;
  /** `http://127.0.0.1:PORT/v1`, the base URL for OpenAI-compatible clients. */
  baseUrl: string;
  requests(): RecordedRequest[];
  /** Indexes of the script turns not used yet. */
  unusedTurns(): number[];
  close(): Promise<void>;
}

const maxBodyBytes = 64 * 1024 * 1024;

/**
 * A scripted OpenAI-compatible model on 127.0.0.1: `POST /v1/chat/completions` (streamed or not; usage
 * in the final chunk) and `GET /v1/models`. Answers come from the script's turns in order (see pickTurn);
 * every request body is kept and optionally appended to a JSONL file.
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
    const path = (req.url ?? "/").split("?")[0]!;
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = raw === "" ? null : JSON.parse(raw);
    } catch {
      // recorded as text
    }
    const entry: RecordedRequest = { seq: seq++, time: new Date().toISOString(), method: req.method ?? "GET", path, turn: null, body };
    if (req.method === "GET" && /\/models$/.test(path)) {
      record(entry);
      return json(res, 200, { object: "list", data: script.models.map((id) => ({ id, object: "model", created: 0, owned_by: "switch-swe" })) });
    }
    if (req.method !== "POST" || !/\/chat\/completions$/.test(path)) {
      record(entry);
      return json(res, 404, { error: { message: `not found: ${req.method} ${path}`, type: "invalid_request_error" } });
    }
    if (!body || typeof body !== "object") {
      record(entry);
      return json(res, 400, { error: { message: "body must be a JSON object", type: "invalid_request_error" } });
    }
    const b = body as { model?: unknown; messages?: unknown; tools?: unknown; stream?: unknown };
    const messages = Array.isArray(b.messages) ? (b.messages as { role?: unknown; content?: unknown }[]) : [];
    const lastUser = [...messages].reverse().find((m) => m.role === "user");
    const hasTools = Array.isArray(b.tools) && b.tools.length > 0;
    const picked = pickTurn(script, used, { lastUserText: contentText(lastUser?.content), hasTools });
    if (picked) used.add(picked.index);
    entry.turn = picked?.index ?? null;
    record(entry);
    const turn = picked ? script.turns[picked.index]! : undefined;
    if (turn?.delay_ms) await new Promise((r) => setTimeout(r, turn.delay_ms));
    if (turn?.error) return json(res, turn.error.status, { error: { message: turn.error.message, type: "mock_error" } });
    const text = turn ? fillTemplate(turn.text ?? "", picked!.vars) : script.fallback;
    const toolCalls = turn?.tool_calls ? fillTemplate(turn.tool_calls, picked!.vars) : [];
    const promptTokens = estimateTokens(JSON.stringify(messages));
    const completionTokens = estimateTokens(text + JSON.stringify(toolCalls.map((c) => c.arguments)));
    const answer: Answer = {
      model: typeof b.model === "string" ? b.model : (script.models[0] ?? "mock"),
      text,
      toolCalls,
      usage: {
        prompt_tokens: turn?.usage?.prompt_tokens ?? promptTokens,
        completion_tokens: turn?.usage?.completion_tokens ?? completionTokens,
        cached_tokens: turn?.usage?.cached_tokens ?? 0,
        reasoning_tokens: turn?.usage?.reasoning_tokens ?? 0,
      },
    };
    const id = String(entry.seq);
    const created = Math.floor(Date.now() / 1000);
    if (b.stream === true) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      for (const chunk of streamChunks(answer, id, created)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      res.end("data: [DONE]\n\n");
      return;
    }
    json(res, 200, completionBody(answer, id, created));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) json(res, 500, { error: { message: String(e), type: "mock_error" } });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests: () => [...recorded],
    unusedTurns: () => script.turns.map((_, i) => i).filter((i) => !used.has(i)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
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
