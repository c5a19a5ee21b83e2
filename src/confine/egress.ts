import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { giveOneToSandbox } from "./sandbox-user.js";
import { createServer as createHttpServer, request as httpRequest, type Server as HttpServer } from "node:http";
import { connect, createServer, isIP, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InfraFault } from "../core/infra-fault.js";

/**
 * The agent's network under `--network model` (the default): its sandbox has a network namespace of
 * its own (bubblewrap `--unshare-net`: only a loopback), and the model endpoints named by the agent's
 * configuration are the only ways out. Each way out is a unix socket in a private directory bound
 * read-only into the sandbox, served by the harness:
 * - a loopback endpoint (`http://127.0.0.1:PORT`, `localhost`, `[::1]`): inside, socat listens on the
 *   same address and port and relays to the socket; outside, the harness relays to that one port;
 * - any other endpoint: an allow-list proxy (node's http server) on a socket, reached inside through a
 *   socat listener on `127.0.0.1:<proxyPort>` and given to the CLIs as HTTPS_PROXY/HTTP_PROXY; it
 *   opens CONNECT tunnels to the allowed host:port and forwards plain HTTP to the allowed origins only,
 *   and it resolves their names itself: inside there is no DNS (no resolver is reachable).
 * No other host, port or name can be reached: there is no route but loopback, and the sockets lead
 * only to the allowed endpoints.
 */

export type NetworkMode = "model" | "none" | "on";
export const networkModes: readonly NetworkMode[] = ["model", "none", "on"];

/** Where a relay of the harness leads: one allowed endpoint. */
export interface Endpoint {
  /** The origin as recorded in run.json (`https://api.anthropic.com:443`). */
  origin: string;
  protocol: "http:" | "https:";
  /** Host name or address, without IPv6 brackets. */
  host: string;
  port: number;
  /** Reached inside on the same loopback address and port (else through the proxy). */
  loopback: boolean;
}

const loopbackHosts = new Set(["127.0.0.1", "localhost", "::1"]);

/** The endpoint of a model URL (its origin), or why it cannot be one. */
export function endpointOf(url: string): Endpoint | string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `not a URL: ${url}`;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return `not an http(s) URL: ${url}`;
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const port = u.port === "" ? (u.protocol === "https:" ? 443 : 80) : Number(u.port);
  const shown = isIP(host) === 6 ? `[${host}]` : host;
  return { origin: `${u.protocol}//${shown}:${port}`, protocol: u.protocol, host, port, loopback: loopbackHosts.has(host) };
}

/** The endpoints of `urls`, one per origin, in order. */
export function endpointsOf(urls: readonly string[]): Endpoint[] {
  const out = new Map<string, Endpoint>();
  for (const url of urls) {
    const e = endpointOf(url);
    if (typeof e === "string") throw new Error(e);
    out.set(e.origin, e);
  }
  return [...out.values()];
}

let socatChecked: string | null | undefined;

/** Null when socat (the relay inside the sandbox) can run here, else why not. */
export function egressProblem(): string | null {
  if (socatChecked !== undefined) return socatChecked;
  try {
    execFileSync("socat", ["-V"], { stdio: "pipe", timeout: 30_000 });
    socatChecked = null;
  } catch {
    socatChecked =
      "socat is not installed (Debian: apt-get install socat): --network model relays the model endpoint into the sandbox with it";
  }
  return socatChecked;
}

/** Where the sockets appear inside the sandbox (/run is a private tmpfs there). */
export const egressInsideDir = "/run/switch-swe-egress";

/** The open ways out of one session's sandboxes, and how a request uses them. */
export interface EgressGate {
  readonly endpoints: readonly Endpoint[];
  /** Host directory of the sockets (bound read-only at egressInsideDir). */
  readonly dir: string;
  /** Proxy variables for the agent (empty when every endpoint is on loopback). */
  env(): Record<string, string>;
  /** `argv` preceded by the socat listeners (each waited for), run inside the sandbox. */
  wrap(argv: readonly string[]): string[];
  /**
   * One more way out, opened by the harness itself during the session: a loopback address of its own (the
   * RCM proxy of `run --rcm`, started per conversation, which alone reaches the allowed endpoints).
   */
  allowLoopback(url: string): Promise<void>;
  close(): Promise<void>;
}

/** A port inside for the proxy that no loopback endpoint uses. */
function proxyPortBesides(endpoints: readonly Endpoint[]): number {
  const used = new Set(endpoints.filter((e) => e.loopback).map((e) => e.port));
  let p = 3128;
  while (used.has(p)) p++;
  return p;
}

/** Every socket a relay or the proxy holds, destroyed on close. */
type Open = Set<Socket>;

function pipeBoth(a: Socket, b: Socket, open: Open): void {
  for (const s of [a, b]) {
    open.add(s);
    s.on("close", () => open.delete(s));
  }
  a.on("error", () => b.destroy());
  b.on("error", () => a.destroy());
  a.pipe(b);
  b.pipe(a);
}

/** Relays every connection on the socket `path` to host:port. */
function relayTo(path: string, host: string, port: number, open: Open): Promise<Server> {
  const server = createServer((inside) => pipeBoth(inside, connect({ host, port }), open));
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      // The sandbox's user (as root: an unprivileged uid) connects to it.
      giveOneToSandbox(path);
      resolve(server);
    });
  });
}

/** The allow-list proxy on the socket `path`: CONNECT to allowed host:port, plain HTTP to allowed origins; 403 otherwise. */
function allowListProxy(path: string, endpoints: readonly Endpoint[], open: Open): Promise<HttpServer> {
  const tunnels = new Set(endpoints.map((e) => `${e.host.toLowerCase()}:${e.port}`));
  const origins = new Set(endpoints.filter((e) => e.protocol === "http:").map((e) => e.origin));
  const server = createHttpServer((req, res) => {
    const target = endpointOf(req.url ?? "");
    if (typeof target === "string" || !origins.has(target.origin)) {
      res.writeHead(403, { "content-type": "text/plain" }).end("switch-swe: only the model endpoint can be reached from the sandbox\n");
      return;
    }
    const u = new URL(req.url!);
    const out = httpRequest(
      { host: target.host, port: target.port, method: req.method, path: `${u.pathname}${u.search}`, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  server.on("connect", (req, socket: Socket, head: Buffer) => {
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? "");
    if (!m || !tunnels.has(`${m[1]!.toLowerCase()}:${m[2]}`)) {
      socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    const up = connect({ host: m[1]!, port: Number(m[2]) }, () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) up.write(head);
      pipeBoth(socket, up, open);
    });
    up.on("error", () => socket.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      // The sandbox's user (as root: an unprivileged uid) connects to it.
      giveOneToSandbox(path);
      resolve(server);
    });
  });
}

/** A socat listener inside: `addr` is `127.0.0.1` or `::1`. */
function listener(addr: string, port: number, socket: string): string {
  const listen = addr === "::1" ? `TCP6-LISTEN:${port},bind=[::1]` : `TCP4-LISTEN:${port},bind=${addr}`;
  return `socat ${listen},reuseaddr,fork UNIX-CONNECT:${socket} 2>/dev/null &`;
}

/** How /proc/net/tcp names 127.0.0.1:port as a local address. */
function procAddress(port: number): string {
  return `0100007F:${port.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Shell (builtins only: no process per check) that waits until every listener is listening (state 0A
 * in /proc/net/tcp), so the agent's first connection never races its relay; gives up after a few
 * seconds (the agent then sees a refused connection, as without a relay).
 */
function waitForListeners(all: ReadonlyArray<{ addr: string; port: number }>): string {
  // IPv4 only: a machine without IPv6 has no ::1 to listen on (the v6 listener of `localhost` is a best effort).
  const listeners = all.filter((l) => l.addr !== "::1");
  const wanted = listeners.map((l) => `0A:${procAddress(l.port)}`).join("|");
  const count = `w=0; while read -r _ l _ st _; do case "$st:$l" in ${wanted}) w=$((w+1));; esac; done < /proc/net/tcp`;
  return `n=0; while ${count}; [ $w -lt ${listeners.length} ] && [ $n -lt 100000 ]; do n=$((n+1)); done`;
}

/** Opens the ways out to `endpoints` for one session (its relays live until close). */
export async function openEgressGate(endpoints: readonly Endpoint[]): Promise<EgressGate> {
  // A queue worker may lack what the coordinator had: not the agent's fault.
  const missing = endpoints.length > 0 ? egressProblem() : null;
  if (missing) throw new InfraFault(`--network model: ${missing}`, false);
  // Short: unix socket paths are limited to 108 bytes.
  const dir = mkdtempSync(join(tmpdir(), "switch-swe-egress-"));
  giveOneToSandbox(dir);
  const servers: Array<Server | HttpServer> = [];
  const open: Open = new Set();
  const listeners: Array<{ addr: string; port: number; socket: string }> = [];
  const remote = endpoints.filter((e) => !e.loopback);
  const proxyPort = proxyPortBesides(endpoints);
  try {
    for (const [i, e] of endpoints.entries()) {
      if (!e.loopback) continue;
      servers.push(await relayTo(join(dir, `e${i}.sock`), e.host, e.port, open));
      const socket = `${egressInsideDir}/e${i}.sock`;
      // `localhost` may resolve to either address inside: both listen.
      for (const addr of e.host === "localhost" ? ["127.0.0.1", "::1"] : [e.host]) listeners.push({ addr, port: e.port, socket });
    }
    if (remote.length > 0) {
      servers.push(await allowListProxy(join(dir, "proxy.sock"), remote, open));
      listeners.push({ addr: "127.0.0.1", port: proxyPort, socket: `${egressInsideDir}/proxy.sock` });
    }
  } catch (e) {
    for (const s of servers) s.close();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const proxy = `http://127.0.0.1:${proxyPort}`;
  const noProxy = "127.0.0.1,localhost,::1";
  return {
    endpoints,
    dir,
    env: (): Record<string, string> =>
      remote.length === 0
        ? {}
        : { HTTPS_PROXY: proxy, https_proxy: proxy, HTTP_PROXY: proxy, http_proxy: proxy, NO_PROXY: noProxy, no_proxy: noProxy },
    wrap: (argv) => {
      if (listeners.length === 0) return [...argv];
      const start = listeners.map((l) => listener(l.addr, l.port, l.socket)).join("\n");
      return ["/bin/sh", "-c", `${start}\n${waitForListeners(listeners)}\nexec "$@"`, "sh", ...argv];
    },
    allowLoopback: async (url) => {
      const e = endpointsOf([url])[0];
      if (!e?.loopback) throw new Error(`allowLoopback: ${url} is not a loopback address`);
      const name = `h${servers.length}.sock`;
      servers.push(await relayTo(join(dir, name), e.host, e.port, open));
      listeners.push({ addr: e.host === "localhost" ? "127.0.0.1" : e.host, port: e.port, socket: `${egressInsideDir}/${name}` });
    },
    close: async () => {
      for (const s of open) s.destroy();
      for (const s of servers) if ("closeAllConnections" in s) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
