import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { parseScript } from "../../src/mock-model/script.js";
import { startRcmProxy, type RcmProxy } from "../../src/rcm/proxy/server.js";
import { elidedNote } from "../../src/rcm/assembly.js";
import { cliPath } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { anthropicCase, focusReturn, otherTaskMarker, turns, wireCases, type WireCase } from "./helpers/wire-conversations.js";

type Json = Record<string, unknown>;

let mock: MockModelServer;
const proxies: RcmProxy[] = [];

beforeAll(async () => {
  mock = await startMockModel({ script: parseScript({ turns: [], fallback: "scripted answer" }) });
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await mock.close();
});

async function proxy(mode: "off" | "router" | "rcm", upstream = mock.baseURL): Promise<RcmProxy> {
  // The extractive record: each case counts the requests reaching the upstream (model-written state: model-state.test.ts).
  const p = await startRcmProxy({ upstream, mode, state: "extractive" });
  proxies.push(p);
  return p;
}

/** Sends a body through the proxy; returns the answer and the body the upstream received. */
async function through(p: RcmProxy, c: WireCase, stream: boolean, body: Json = c.body(stream)) {
  const before = mock.requests().length;
  const res = await fetch(`http://127.0.0.1:${p.port}${c.path(stream)}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer agent-key" },
    body: JSON.stringify(body),
  });
  const answer = await res.text();
  const received = mock.requests().slice(before);
  expect(received).toHaveLength(1);
  return { status: res.status, contentType: res.headers.get("content-type"), answer, upstream: received[0]!.body as Json, sent: body };
}

/** Tool call ids and result ids of a body, read independently of the proxy's own code. */
function toolIds(text: string): { calls: string[]; results: string[] } {
  const calls = [...text.matchAll(/"(?:id|call_id)":"(c\d)"/g)].map((m) => m[1]!);
  const results = [...text.matchAll(/"(?:tool_call_id|tool_use_id)":"(c\d)"|"call_id":"(c\d)","output"/g)].map((m) => m[1] ?? m[2]!);
  return { calls, results };
}

describe.each(wireCases)("rcm proxy, $name", (c) => {
  it.each([false, true])(
    "focus return (stream %s): the other task's groups are dropped, the focus record is present, the rest arrives untouched",
    async (stream) => {
      const p = await proxy("rcm");
      const r = await through(p, c, stream);
      expect(r.status).toBe(200);
      expect(r.contentType).toBe(stream ? "text/event-stream" : "application/json");
      expect(r.answer).toContain("scripted answer");
      const up = JSON.stringify(r.upstream);
      expect(up).not.toContain(otherTaskMarker);
      for (const t of turns.slice(0, 3)) expect(up).toContain(JSON.stringify(t.user).slice(1, -1));
      expect(c.lastUserText(r.upstream)).toContain('<task-state task=\\"t1\\"');
      expect(c.lastUserText(r.upstream)).toContain(JSON.stringify(focusReturn).slice(1, -1));
      expect(up).toContain(elidedNote);
      // The system prompt and the tool definitions are untouched; so are the image and the unknown part.
      for (const k of ["system", "systemInstruction", "tools", "model", "max_tokens", "store"]) expect(r.upstream[k]).toEqual(r.sent[k]);
      expect(c.untouched(r.upstream)).toEqual(c.untouched(r.sent));
      expect(c.untouched(r.upstream).image).toBeDefined();
      // Every tool call that reaches the upstream has its result, and no result is left without its call.
      const ids = toolIds(up);
      expect(new Set(ids.calls)).toEqual(new Set(ids.results));
      expect(ids.calls).not.toContain("c4");
      const log = p.entries().at(-1)!;
      expect(log).toMatchObject({ action: "assembled", protocol: c.name, mode: "rcm", step: { active: "t1", filtered: true, dropped: 1 } });
      expect(log.dropped).toEqual([expect.stringMatching(/:t2$/)]);
      expect(log.step!.record_chars).toBeGreaterThan(0);
    },
  );

  it("mode off: the upstream receives the request exactly as sent, and the log says what RCM would route", async () => {
    const p = await proxy("off");
    const r = await through(p, c, false);
    expect(r.upstream).toEqual(r.sent);
    expect(p.entries().at(-1)).toMatchObject({ action: "assembled", step: { active: "t1", filtered: false, dropped: 0 } });
  });

  it("mode router: the other task's groups are dropped, nothing is elided and no record is added", async () => {
    const p = await proxy("router");
    const r = await through(p, c, false);
    const up = JSON.stringify(r.upstream);
    expect(up).not.toContain(otherTaskMarker);
    expect(up).not.toContain("task-state");
    expect(up).not.toContain(elidedNote);
  });
});

describe("rcm proxy, failing open", () => {
  it("a body it cannot parse goes upstream as is, and the error is logged", async () => {
    const p = await proxy("rcm");
    const before = mock.requests().length;
    const res = await fetch(`http://127.0.0.1:${p.port}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"messages": [ not json',
    });
    expect(res.status).toBe(400);
    expect(
      mock
        .requests()
        .slice(before)
        .map((r) => r.body),
    ).toEqual(['{"messages": [ not json']);
    expect(p.entries().at(-1)).toMatchObject({ action: "fail_open", protocol: "openai-chat", upstream_status: 400 });
    expect(p.entries().at(-1)!.error).toMatch(/JSON/);
  });

  it("a conversation whose tool calls the assembly would separate from their results goes as sent", async () => {
    const p = await proxy("rcm");
    const body = wireCases[0]!.body(false);
    // A result of the other task's call arrives after the focus return: dropping that task would orphan it.
    (body.messages as Json[]).push({ role: "tool", tool_call_id: "c4", content: "late result" });
    const r = await through(p, wireCases[0]!, false, body);
    expect(r.upstream).toEqual(body);
    expect(p.entries().at(-1)).toMatchObject({
      action: "fail_open",
      error: expect.stringMatching(/tool call and result would be separated/),
    });
  });

  it("requests without tools (titles, routers, compaction) pass unchanged", async () => {
    const p = await proxy("rcm");
    const body = { ...wireCases[0]!.body(false), tools: [] };
    const r = await through(p, wireCases[0]!, false, body);
    expect(r.upstream).toEqual(body);
    expect(p.entries().at(-1)).toMatchObject({ action: "pass", reason: expect.stringMatching(/no tools/) });
  });

  it("streams the upstream's bytes back unchanged, chunk by chunk, headers included; the agent's key is replaced by the proxy's", async () => {
    let seenKey: string | undefined;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const upstream = createServer((req, res) => {
      seenKey = req.headers["x-api-key"] as string | undefined;
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream", "x-upstream": "yes" });
      res.write('event: one\ndata: {"a":1}\n\n');
      void gate.then(() => res.end('event: two\ndata: {"b":2}\n\n'));
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
    const p = await startRcmProxy({
      upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      mode: "rcm",
      state: "extractive",
      keyEnv: "UPSTREAM_KEY",
      env: { UPSTREAM_KEY: "proxy-secret" },
    });
    proxies.push(p);
    const res = await fetch(`http://127.0.0.1:${p.port}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": "agent-dummy" },
      body: JSON.stringify(wireCases[1]!.body(true)),
    });
    expect(res.headers.get("x-upstream")).toBe("yes");
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    // The first event arrives while the upstream still holds the second.
    expect(first).toBe('event: one\ndata: {"a":1}\n\n');
    release();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(rest).toBe('event: two\ndata: {"b":2}\n\n');
    expect(seenKey).toBe("proxy-secret");
    expect(JSON.stringify(p.entries())).not.toContain("proxy-secret");
    upstream.close();
  });
});

describe("switch-swe rcm proxy (the command)", () => {
  it("serves until SIGTERM, prints the base URL with the upstream's path, and logs one line per request", async () => {
    const log = join(tempDir("switch-swe-rcm-proxy-"), "proxy.jsonl");
    const child = spawn(process.execPath, [cliPath, "rcm", "proxy", "--upstream", mock.baseURL, "--mode", "router", "--log", log], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(out);
      });
      child.once("exit", (code) => reject(new Error(`exited ${code}`)));
    });
    const base = /listening on (http:\/\/127\.0\.0\.1:\d+\/v1) /.exec(line)?.[1];
    expect(base, line).toBeDefined();
    const res = await fetch(`${base}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(wireCases[0]!.body(false)),
    });
    expect(res.status).toBe(200);
    await res.text();
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    const entries = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: "assembled",
      mode: "router",
      protocol: "openai-chat",
      upstream_status: 200,
      step: { dropped: 1 },
    });
  });
});

describe("rcm proxy after the host compacted the conversation", () => {
  it("a conversation whose start became a summary keeps its memory (found by a request it still holds), and the record lists the requests the summary dropped", async () => {
    const p = await startRcmProxy({ upstream: mock.baseURL, mode: "rcm", state: "extractive", single: true });
    proxies.push(p);
    await through(p, anthropicCase, false);
    const summary =
      "This session is being continued from a previous conversation that ran out of context. Summary: the latest request was about BetaParser.";
    const compacted = {
      ...anthropicCase.body(false),
      messages: [
        { role: "user", content: [{ type: "text", text: summary }] },
        { role: "assistant", content: [{ type: "text", text: "Understood." }] },
        { role: "user", content: [{ type: "text", text: focusReturn }] },
        { role: "assistant", content: [{ type: "text", text: "Done." }] },
        { role: "user", content: [{ type: "text", text: "Workspace: /ws/w00\n\nAlso make alpha_mean in src/alpha.py skip None values." }] },
      ],
    };
    const r = await through(p, anthropicCase, false, compacted);
    expect(new Set(p.engines().values()).size).toBe(1);
    const current = anthropicCase.lastUserText(r.upstream);
    expect(current).toContain("Requests no longer in the conversation:");
    for (const t of turns.slice(1, 3)) expect(current).toContain(t.user.split("\n\n")[1]!.split(":")[0]!);
    expect(current).not.toContain(otherTaskMarker);
  });
});
