import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import { request as httpsRequest } from "node:https";
import { RcmEngine } from "../engine.js";
import type { RcmMode } from "../history.js";
import { parseRcmOptions, type RcmOptionsInput } from "../options.js";
import { requestModel, upstreamAuxChat, type UpstreamVia } from "./aux-upstream.js";
import { closeServer, listenOnLoopback } from "../../core/loopback-server.js";
import type { ProxyLogEntry } from "../../formats/rcm-proxy-log.js";
import { appendProxyLog } from "./log.js";
import { anthropicWire } from "./anthropic-messages.js";
import { geminiWire } from "./gemini.js";
import { openaiChatWire } from "./openai-chat.js";
import { openaiResponsesWire } from "./openai-responses.js";
import { rewriteRequest, type Rewrite } from "./rewrite.js";
import { isObject, type WireFormat } from "./wire-format.js";

export interface RcmProxyOptions {
  /** The model API the requests go to: its origin replaces the proxy's; its path is the base path agents use. */
  upstream: string;
  mode: RcmMode;
  /** 0 (default) picks a free port. */
  port?: number;
  /** RCM's other options (threshold, keepRecent, auxBudget, …). */
  rcm?: Omit<RcmOptionsInput, "mode" | "auxModel" | "stateDir">;
  /**
   * The auxiliary model (routing below the threshold, model-written state): `upstream` (default) is the
   * agent's own model, asked through the upstream in the agent's wire format with the agent's headers;
   * `off` makes no call.
   */
  aux?: "upstream" | "off";
  /**
   * The state memory (mode rcm): `model` (default with the auxiliary model: it writes the task records,
   * checked; extractive where it gives no usable answer) or `extractive` (default with `aux: off`: the
   * deterministic updater alone).
   */
  state?: RcmStateKind;
  /** Deadline of one auxiliary call (default 60 s). */
  auxTimeoutMs?: number;
  /** One JSON line per request (log.ts). */
  logFile?: string;
  /**
   * The proxy serves one agent conversation (`run --rcm`): a request whose history RCM does not know
   * (the host compacted it into a summary) continues it, with its memory, instead of starting afresh.
   */
  single?: boolean;
  /** Name of a variable of the proxy's environment holding the upstream key: it replaces the key the agent sent. */
  keyEnv?: string;
  env?: NodeJS.ProcessEnv;
}

export interface RcmProxy {
  port: number;
  /** `http://127.0.0.1:PORT` followed by the upstream's path: the base URL an agent is given. */
  baseURL: string;
  /** Every request's log entry, in order. */
  entries(): ProxyLogEntry[];
  /** RCM's memory of each conversation, by conversation id. */
  engines(): ReadonlyMap<string, RcmEngine>;
  close(): Promise<void>;
}

export const rcmStateKinds = ["extractive", "model"] as const;
export type RcmStateKind = (typeof rcmStateKinds)[number];

const formats: readonly WireFormat[] = [openaiChatWire, anthropicWire, openaiResponsesWire, geminiWire];
const hopByHop = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
]);
const keyHeaders = ["authorization", "x-api-key", "x-goog-api-key"];
/** Conversations kept in memory at once (the oldest is forgotten first). */
const maxConversations = 256;

function forwardHeaders(
  headers: IncomingHttpHeaders,
  format: WireFormat | undefined,
  key: string | undefined,
  length: number,
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !hopByHop.has(k) && !(key && keyHeaders.includes(k))) out[k] = v;
  if (key) {
    if (format === anthropicWire) out["x-api-key"] = key;
    else if (format === geminiWire) out["x-goog-api-key"] = key;
    else out.authorization = `Bearer ${key}`;
  }
  out["content-length"] = length;
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

type Outcome = Rewrite | { action: "fail_open"; error: string };

/** RCM's rewrite of one body, or why it goes as it came (failing open on any error). */
async function outcomeOf(
  format: WireFormat,
  body: unknown,
  engineFor: (conversation: string, groups: readonly string[]) => RcmEngine,
): Promise<Outcome> {
  try {
    if (body instanceof Error) throw body;
    return isObject(body) ? await rewriteRequest(format, body, engineFor) : { action: "pass", reason: "body is not a JSON object" };
  } catch (e) {
    return { action: "fail_open", error: e instanceof Error ? e.message : String(e) };
  }
}

function logEntry(
  seq: number,
  method: string,
  path: string,
  mode: RcmMode,
  format: WireFormat | undefined,
  outcome: Outcome,
  cpu: number,
): ProxyLogEntry {
  return {
    time: new Date().toISOString(),
    seq,
    method,
    path,
    mode,
    protocol: format?.name ?? null,
    action: outcome.action,
    ...(outcome.action === "pass" ? { reason: outcome.reason } : {}),
    ...(outcome.action === "fail_open" ? { error: outcome.error } : {}),
    ...(outcome.action === "assembled"
      ? {
          conversation: outcome.conversation,
          step: outcome.step,
          kept: outcome.kept,
          dropped: outcome.dropped,
          elided: outcome.elided,
          ...(outcome.state ? { state: outcome.state } : {}),
          ...(outcome.stateWrites.length > 0 ? { state_writes: outcome.stateWrites } : {}),
          entries: outcome.entries,
        }
      : {}),
    cpu_ms: cpu,
    upstream_status: null,
  };
}

/** Sends the request upstream and pipes the answer back as it arrives; `done` gets the status (null: unreachable). */
function forward(
  res: ServerResponse,
  target: URL,
  method: string,
  headers: OutgoingHttpHeaders,
  body: Buffer,
  done: (status: number | null) => void,
): void {
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  const up = send(target, { method, headers }, (upRes) => {
    done(upRes.statusCode ?? null);
    res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, upRes.headers);
    upRes.pipe(res);
  });
  up.on("error", (e) => {
    done(null);
    if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        error: { message: `switch-swe rcm proxy: upstream ${target.origin} unreachable: ${e.message}`, type: "proxy_error" },
      }),
    );
  });
  res.on("close", () => {
    if (!res.writableFinished) up.destroy();
  });
  up.end(body);
}

/**
 * RCM on the model endpoint: an HTTP server on 127.0.0.1 that reads each model request of the four
 * APIs, runs the conversation through the same core as the OpenCode plugin (one engine per
 * conversation), forwards the assembled request to the upstream and streams its answer back byte for
 * byte. It fails open: a body it cannot read, or any error of its own, sends the request upstream
 * exactly as it came, and the error is logged.
 */
export async function startRcmProxy(opts: RcmProxyOptions): Promise<RcmProxy> {
  const upstream = new URL(opts.upstream);
  const auxOn = opts.aux !== "off";
  if (!auxOn && opts.state === "model") throw new Error("rcm proxy: model-written state needs the auxiliary model (aux upstream)");
  // "host" is the proxy's host: the agent's own upstream (aux-upstream.ts).
  const state = opts.state ?? (auxOn ? "model" : "extractive");
  const options = parseRcmOptions({
    ...opts.rcm,
    mode: opts.mode,
    auxModel: auxOn ? { host: true, stateUpdates: state === "model", timeoutMs: opts.auxTimeoutMs ?? 60_000 } : "off",
  });
  /** Each conversation's latest upstream request: where its auxiliary calls go. */
  const vias = new WeakMap<RcmEngine, UpstreamVia>();
  const key = opts.keyEnv ? (opts.env ?? process.env)[opts.keyEnv] : undefined;
  const engines = new Map<string, RcmEngine>();
  const entries: ProxyLogEntry[] = [];
  let seq = 0;

  const engineFor = (conversation: string, groups: readonly string[]) => {
    let e = engines.get(conversation) ?? continued(groups);
    if (e) {
      engines.set(conversation, e);
      return e;
    }
    const created: RcmEngine = new RcmEngine(
      options,
      undefined,
      auxOn ? upstreamAuxChat(() => vias.get(created) ?? null, opts.auxTimeoutMs ?? 60_000) : null,
    );
    e = created;
    engines.set(conversation, e);
    if (engines.size > maxConversations) engines.delete(engines.keys().next().value!);
    return e;
  };

  /**
   * The conversation a request continues when its first request is new to the proxy: a host's compaction
   * replaced the start of its history by a summary, and kept requests RCM has routed (or, with `single`,
   * kept none: the one conversation the proxy serves).
   */
  const continued = (groups: readonly string[]): RcmEngine | undefined => {
    const known = [...engines.values()].find((e) => groups.some((g) => e.memory.router.assignments[g] !== undefined));
    if (known || !opts.single) return known;
    return [...engines.values()].pop();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://proxy");
    const format = formats.find((f) => f.accepts(method, url.pathname));
    const target = new URL(url.pathname + url.search, upstream.origin);
    const cpu = process.cpuUsage();
    const body = format ? parsedBody(raw) : null;
    const model = isObject(body) ? requestModel(body, url.pathname) : null;
    const via = format && model ? { protocol: format.name, target, headers: forwardHeaders(req.headers, format, key, 0), model } : null;
    const withVia = (conversation: string, groups: readonly string[]) => {
      const e = engineFor(conversation, groups);
      if (via) vias.set(e, via);
      return e;
    };
    const outcome = format ? await outcomeOf(format, body, withVia) : ({ action: "pass", reason: "not a model request" } as const);
    // An unchanged history goes as the very bytes that came (the upstream's prompt cache sees the same prefix).
    const sent = outcome.action === "assembled" && outcome.changed ? Buffer.from(JSON.stringify(outcome.body)) : raw;
    // cpu_ms counts the proxy's own work; an auxiliary call's wait is not CPU (another request's work in that time is).
    const entry = logEntry(seq++, method, url.pathname, options.mode, format, outcome, cpuMs(cpu));
    const done = (status: number | null) => {
      entry.upstream_status = status;
      entries.push(entry);
      appendProxyLog(opts.logFile, entry);
    };
    forward(res, target, method, forwardHeaders(req.headers, format, key, sent.length), sent, done);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  const port = await listenOnLoopback(server, opts.port ?? 0);
  return {
    port,
    baseURL: `http://127.0.0.1:${port}${upstream.pathname.replace(/\/+$/, "")}`,
    entries: () => [...entries],
    engines: () => engines,
    close: () => closeServer(server),
  };
}

/** A model request's JSON body, or the error that parsing it gave (answered as the protocol's error). */
function parsedBody(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}
