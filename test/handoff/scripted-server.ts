import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the scripted server answers to one request: a reply text, or an HTTP error. */
export type ScriptStep = { text: string; model?: string } | { status: number; error: string };

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: {
    model?: string;
    stream?: boolean;
    temperature?: number;
    messages?: { role: string; content: unknown }[];
    [key: string]: unknown;
  };
}

export interface ScriptedServer {
  /** Base URL to pass as --base-url (ends in /v1). */
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const USAGE = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Replies as the OpenAI chat completions API does, as one SSE stream. */
function sendStream(res: ServerResponse, id: string, model: string, text: string): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunk = (delta: object, finish: string | null, usage?: object) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
  res.write(chunk({ role: "assistant", content: text }, null));
  res.write(chunk({}, "stop", USAGE));
  res.end("data: [DONE]\n\n");
}

/**
 * An OpenAI-compatible endpoint on 127.0.0.1 that answers POST /v1/chat/completions from a
 * script, one step per request in order, and records every request it got.
 */
export async function startScriptedServer(script: (index: number, req: RecordedRequest) => ScriptStep): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions")
        return send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
      let body: RecordedRequest["body"];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as RecordedRequest["body"];
      } catch {
        return send(res, 400, { error: { message: "body is not JSON" } });
      }
      const recorded = { path: req.url, headers: req.headers, body };
      const index = requests.length;
      requests.push(recorded);
      let step: ScriptStep;
      try {
        step = script(index, recorded);
      } catch (e) {
        // A broken script must fail the test quickly, not leave the client waiting.
        step = { status: 599, error: `scripted server: the script threw: ${String(e)}` };
      }
      if ("status" in step) return send(res, step.status, { error: { message: step.error, type: "server_error" } });
      const model = step.model ?? `${body.model ?? "model"}-2025-01-01`;
      const id = `chatcmpl-${index}`;
      if (body.stream === true) return sendStream(res, id, model, step.text);
      send(res, 200, {
        id,
        object: "chat.completion",
        created: 1,
        model,
        choices: [{ index: 0, message: { role: "assistant", content: step.text }, finish_reason: "stop" }],
        usage: USAGE,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
