import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseScript } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { cliAsync } from "../helpers/cli.js";
import { skipWithout } from "../helpers/tools.js";
import { freePort, RedisServer } from "../queue/fleet.js";
import { makeRunFixture, writeScript } from "./fixture.js";

// Needs bwrap, socat (the relay), redis-server: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "socat", "redis-server");

/** An HTTP server that answers 200 `name` on `host`, standing in for a code host or a remote model API. */
async function answering(host: string, name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end(name));
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  const a = server.address();
  return { server, port: typeof a === "object" && a ? a.port : 0 };
}

/**
 * The attack, from inside the agent's sandbox (a scripted `command` agent, python's own urllib and
 * sockets): every probe writes one line to egress.txt in the workspace, so the artifact shows it ran.
 */
const probe = String.raw`
import os, socket, sys, urllib.request
out = open(os.path.join(os.environ["SWITCH_SWE_WORKSPACE"], "egress.txt"), "w")
def line(name, what):
    out.write(f"{name}: {what}\n"); out.flush()
def get(name, url, proxy=None):
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler(proxy) if proxy is not None else urllib.request.ProxyHandler())
        r = opener.open(url, timeout=5)
        line(name, f"{r.status} {r.read().decode()[:40]}")
    except Exception as e:
        line(name, f"refused {type(e).__name__}")
def tcp(name, port):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5); s.sendall(b"PING\r\n"); line(name, "open " + s.recv(20).decode().strip())
    except Exception as e:
        line(name, f"refused {type(e).__name__}")
line("ran", "yes")
model, code, redis, remote = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
get("model", model + "/v1/models")
get("code-host", f"http://127.0.0.1:{code}/")
tcp("redis", redis)
try:
    socket.getaddrinfo("example.com", 443); line("dns", "resolved")
except Exception as e:
    line("dns", f"failed {type(e).__name__}")
# A model endpoint off loopback goes through the allow-list proxy (HTTP_PROXY); the proxy refuses anything else.
get("remote-model", remote + "/")
get("via-proxy-code-host", f"http://127.0.0.2:{code}/", proxy={"http": os.environ.get("HTTP_PROXY", "")})
try:
    s = socket.create_connection(("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])), timeout=5)
    s.sendall(f"CONNECT 127.0.0.1:{redis} HTTP/1.1\r\nHost: x\r\n\r\n".encode()); line("proxy-connect-redis", s.recv(40).decode().split("\r\n")[0])
except Exception as e:
    line("proxy-connect-redis", f"refused {type(e).__name__}")
line("proxy-env", os.environ.get("HTTPS_PROXY", "unset"))
`;

describe.skipIf(missingTool)("--network model: the agent reaches its model endpoints and nothing else", () => {
  let model: MockModelServer;
  let codeHost: { server: Server; port: number };
  let remoteModel: { server: Server; port: number };
  let redis: RedisServer;
  const fx = makeRunFixture(1);

  beforeAll(async () => {
    model = await startMockModel({ script: parseScript({ models: ["mock"], turns: [] }) });
    codeHost = await answering("127.0.0.1", "code host");
    // Off loopback as the sandbox sees it (only 127.0.0.1, localhost and ::1 are relayed directly).
    remoteModel = await answering("127.0.0.2", "remote model");
    redis = new RedisServer(await freePort(), join(fx.root, "redis"));
    await redis.start();
  });
  afterAll(async () => {
    await model.close();
    codeHost.server.close();
    remoteModel.server.close();
    await redis.stop();
  });

  it("a scripted agent inside: the model answers; another local server, Redis and DNS do not; run.json names the endpoints", async () => {
    const script = join(fx.root, "probe.py");
    writeScript(fx.root, "probe.py", probe);
    const remote = `http://127.0.0.2:${remoteModel.port}`;
    const pair = fx.sessions.pairs[0]!.focus;
    const out = join(fx.root, "run");
    const command = `python3 ${script} ${model.origin} ${codeHost.port} ${redis.port} ${remote}`;
    const r = await cliAsync(
      ["run", "--dataset", fx.datasetDir, "--sessions", fx.sessionsPath, "--out", out, "--no-verify", "--quiet", "--session", `${pair}.base`,
        "--agent", "command", "--agent-opt", `command=${command}`, "--agent-opt", `endpoints=${model.baseURL},${remote}`],
      { env: { SWITCH_SWE_CACHE: fx.cache } },
    );
    expect(r.code, r.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as { sandbox: { network: string; allowed_endpoints: string[]; enforced: string[] } };
    const modelOrigin = model.origin;
    expect(config.sandbox.network).toBe("model");
    expect(config.sandbox.allowed_endpoints).toEqual([`${modelOrigin}`, `${remote}`]);
    expect(config.sandbox.enforced.join("\n")).toContain(`only the model endpoints ${modelOrigin}, ${remote}`);

    const session = readdirSync(join(out, "sessions"))[0]!;
    const patch = readFileSync(join(out, "sessions", session, "artifact.patch"), "utf8");
    const lines = Object.fromEntries(
      patch
        .split("\n")
        .filter((l) => l.startsWith("+") && !l.startsWith("+++"))
        .map((l) => l.slice(1).split(": ") as [string, string]),
    );
    expect(lines).toMatchObject({
      ran: "yes",
      model: expect.stringMatching(/^200 \{"object":"list"/),
      "code-host": "refused URLError",
      redis: "refused ConnectionRefusedError",
      dns: "failed gaierror",
      "remote-model": "200 remote model",
      "via-proxy-code-host": "refused HTTPError",
      "proxy-connect-redis": "HTTP/1.1 403 Forbidden",
      "proxy-env": expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
    });
  }, 300_000);
});
