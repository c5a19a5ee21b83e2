import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect, createServer as createTcpServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { opencodePackage } from "../../src/agents/opencode.js";
import { locateCli } from "../../src/agents/cli-options.js";
import { parseScript } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { cliAsync } from "../helpers/cli.js";
import { egressProbe, probeLines } from "../helpers/egress-probe.js";
import { skipWithout } from "../helpers/tools.js";
import { freePort, RedisServer } from "../queue/fleet.js";
import { makeRunFixture } from "../run/fixture.js";

// Needs bwrap, socat (the relay), redis-server: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "socat", "redis-server");

/**
 * Real OpenCode under the default `--network model`: it finishes its requests against the scripted
 * model through the relay (and, off loopback, through the allow-list proxy: Bun's fetch honours
 * HTTP_PROXY), and the shell call the model asks for (the attack) reaches neither a
 * second local server, nor Redis, nor DNS.
 */
describe.skipIf(missingTool)("switch-swe run --agent opencode under --network model", () => {
  let model: MockModelServer;
  let codeHost: Server;
  let codePort = 0;
  let redis: RedisServer;
  const fx = makeRunFixture(1);

  beforeAll(async () => {
    codeHost = createServer((_req, res) => res.end("code host"));
    await new Promise<void>((r) => codeHost.listen(0, "127.0.0.1", () => r()));
    codePort = (codeHost.address() as { port: number }).port;
    redis = new RedisServer(await freePort(), join(fx.root, "redis"));
    await redis.start();
  });
  afterAll(async () => {
    await model?.close();
    codeHost.close();
    await redis.stop();
  });

  // On loopback, the model is relayed at its own address; off loopback (127.0.0.2 standing in for a
  // remote API, forwarding to the mock model), OpenCode reaches it through the allow-list proxy
  // (HTTP_PROXY), and the model's loopback address is then refused like any other.
  it.each([
    { where: "on loopback", proxied: false },
    { where: "off loopback, through the proxy", proxied: true },
  ])(
    "the model $where answers every request; the attack it asks for is refused everything else",
    async ({ proxied }) => {
      const b64 = Buffer.from(egressProbe).toString("base64");
      const port = await freePort();
      const command = `cd '{{workspace}}' && echo ${b64} | base64 -d > /tmp/probe.py && python3 /tmp/probe.py http://127.0.0.1:${port} ${codePort} ${redis.port} none`;
      model = await startMockModel({
        port,
        script: parseScript({
          models: ["scripted"],
          turns: [{ tool_calls: [{ name: "bash", arguments: { command, description: "probe the network" } }] }],
        }),
      });
      const forward = createTcpServer((c) => {
        const up = connect(port, "127.0.0.1");
        c.pipe(up).pipe(c);
      });
      await new Promise<void>((r) => forward.listen(0, "127.0.0.2", () => r()));
      const baseURL = proxied ? `http://127.0.0.2:${(forward.address() as { port: number }).port}/v1` : model.baseURL;
      const pair = fx.sessions.pairs[0]!.focus;
      const out = join(fx.root, proxied ? "run-proxied" : "run");
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
          "--request-timeout",
          "240",
          // The probe's marks are read from the checkout's diff: no submission asked for.
          "--submission",
          "checkout",
          "--agent",
          "opencode",
          "--agent-opt",
          "model=mock/scripted",
          "--agent-opt",
          `base_url=${baseURL}`,
          "--agent-opt",
          `binary=${realpathSync(locateCli(opencodePackage)!)}`,
        ],
        { env: { SWITCH_SWE_CACHE: fx.cache }, timeoutMs: 20 * 60_000 },
      );
      forward.close();
      await model.close();
      expect(r.code, r.stderr).toBe(0);
      const config = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as {
        sandbox: { network: string; allowed_endpoints: string[] };
      };
      expect(config.sandbox).toMatchObject({ network: "model", allowed_endpoints: [new URL(baseURL).origin] });

      const session = readdirSync(join(out, "sessions"))[0]!;
      const dir = join(out, "sessions", session);
      const lines = probeLines(readFileSync(join(dir, "artifact.patch"), "utf8"));
      expect(lines).toMatchObject({
        ran: "yes",
        model: proxied ? "refused URLError" : expect.stringMatching(/^200 \{"object":"list"/),
        "code-host": "refused URLError",
        redis: "refused ConnectionRefusedError",
        dns: "failed gaierror",
      });
      // Every request finished: the agent's model calls went through the relay (the tool result came back to the model).
      const summary = JSON.parse(readFileSync(join(dir, "session.json"), "utf8")) as { requests: { delivered: number; yielded: number } };
      expect(summary.requests.yielded).toBe(summary.requests.delivered);
      const calls = model.requests().filter((q) => q.method === "POST");
      expect(
        calls.some((q) => q.turn === 0),
        "the call that asked for the probe",
      ).toBe(true);
      expect(calls.filter((q) => q.turn === null).length, "the calls after it").toBeGreaterThan(0);
      // OpenCode's own web tools are denied (web=on allows them).
      const opencodeConfig = readFileSync(join(dir, "attempts", "1", "agent", "opencode-config.json"), "utf8");
      expect(JSON.parse(opencodeConfig)).toMatchObject({ permission: { webfetch: "deny", websearch: "deny" } });
    },
    20 * 60_000,
  );
});
