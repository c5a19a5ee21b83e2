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
import { egressProbe, probeLines } from "../helpers/egress-probe.js";

// Needs bwrap, socat (the relay), redis-server: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "socat", "redis-server");

/** An HTTP server that answers 200 `name` on `host`, standing in for a code host or a remote model API. */
async function answering(host: string, name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end(name));
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  const a = server.address();
  return { server, port: typeof a === "object" && a ? a.port : 0 };
}

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
    writeScript(fx.root, "probe.py", egressProbe);
    const remote = `http://127.0.0.2:${remoteModel.port}`;
    const pair = fx.sessions.pairs[0]!.focus;
    const out = join(fx.root, "run");
    const command = `python3 ${script} ${model.origin} ${codeHost.port} ${redis.port} ${remote}`;
    const r = await cliAsync(
      [
        "run",
        "--dataset",
        fx.datasetDir,
        "--sessions",
        fx.sessionsPath,
        "--out",
        out,
        "--no-verify",
        "--quiet",
        "--session",
        `${pair}.base`,
        "--agent",
        "command",
        "--agent-opt",
        `command=${command}`,
        "--agent-opt",
        `endpoints=${model.baseURL},${remote}`,
      ],
      { env: { SWITCH_SWE_CACHE: fx.cache } },
    );
    expect(r.code, r.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as {
      sandbox: { network: string; allowed_endpoints: string[]; enforced: string[] };
    };
    const modelOrigin = model.origin;
    expect(config.sandbox.network).toBe("model");
    expect(config.sandbox.allowed_endpoints).toEqual([`${modelOrigin}`, `${remote}`]);
    expect(config.sandbox.enforced.join("\n")).toContain(`only the model endpoints ${modelOrigin}, ${remote}`);

    const session = readdirSync(join(out, "sessions"))[0]!;
    const patch = readFileSync(join(out, "sessions", session, "artifact.patch"), "utf8");
    const lines = probeLines(patch);
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
