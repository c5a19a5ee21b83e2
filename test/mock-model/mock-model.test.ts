import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { parseScript, pickTurn } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { tempDir } from "../helpers/synthetic-dataset.js";

let server: MockModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const tools = [{ type: "function", function: { name: "write", parameters: { type: "object" } } }];
const user = (text: string) => ({ role: "user", content: text });

async function post(body: unknown): Promise<Response> {
  return fetch(`${server!.baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Parses an SSE body into its JSON payloads (and the final [DONE]). */
async function sse(res: Response): Promise<unknown[]> {
  const text = await res.text();
  return text
    .split("\n\n")
    .filter((b) => b.startsWith("data: "))
    .map((b) => b.slice(6))
    .map((d) => (d === "[DONE]" ? "[DONE]" : (JSON.parse(d) as unknown)));
}

describe("mock-model script", () => {
  it("accepts a bare list of turns and reports bad turns with their path", () => {
    expect(parseScript([{ text: "hi" }]).turns).toHaveLength(1);
    expect(() => parseScript({ turns: [{ match: "x" }] }, "s.json")).toThrow(/s\.json: turns\[0\]: a turn needs text, tool_calls or error/);
    expect(() => parseScript({ turns: [], extra: 1 }, "s.json")).toThrow(/s\.json/);
  });

  it("picks the first unused eligible turn and binds the workspace and named groups", () => {
    const script = parseScript([
      { match: "beta", text: "b" },
      { match: ["alpha", "stage 2"], match_regex: "stage (?<n>\\d)", text: "a{{n}} in {{workspace}}" },
      { requests: "auxiliary", text: "title" },
    ]);
    const used = new Set<number>();
    const req = { lastUserText: "Repository: r\nWorkspace: /w/w03\n\nalpha stage 2", hasTools: true };
    expect(pickTurn(script, used, req)).toEqual({ index: 1, vars: { workspace: "/w/w03", n: "2" } });
    expect(pickTurn(script, used, { lastUserText: "anything", hasTools: false })?.index).toBe(2);
    used.add(1);
    expect(pickTurn(script, used, req)).toBeNull();
  });
});

describe("mock-model server", () => {
  it("answers streamed requests with text, tool calls and a final usage chunk, and records every request", async () => {
    const dir = tempDir();
    const recordFile = join(dir, "requests.jsonl");
    server = await startMockModel({
      script: parseScript([
        { match: "write it", tool_calls: [{ name: "write", arguments: { filePath: "{{workspace}}/a.py", content: "A = 1\n" } }] },
        { match: "write it", text: "Done writing.", usage: { prompt_tokens: 100, completion_tokens: 7, cached_tokens: 40 } },
      ]),
      recordFile,
    });
    const msg = "Repository: r\nWorkspace: /tmp/ws/w01\n\nPlease write it.";
    const first = await sse(
      await post({ model: "m", stream: true, stream_options: { include_usage: true }, tools, messages: [user(msg)] }),
    );
    expect(first.at(-1)).toBe("[DONE]");
    const chunks = first.slice(0, -1) as {
      choices: { delta: { tool_calls?: { function: { name: string; arguments: string } }[] }; finish_reason: string | null }[];
      usage?: unknown;
    }[];
    const call = chunks.flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls ?? []))[0]!;
    expect(call.function.name).toBe("write");
    expect(JSON.parse(call.function.arguments)).toEqual({ filePath: "/tmp/ws/w01/a.py", content: "A = 1\n" });
    expect(chunks.some((c) => c.choices[0]?.finish_reason === "tool_calls")).toBe(true);
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });

    const second = await post({
      model: "m",
      tools,
      messages: [user(msg), { role: "assistant", content: null }, { role: "tool", content: "ok" }],
    });
    const body = (await second.json()) as {
      choices: { message: { content: string }; finish_reason: string }[];
      usage: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
    };
    expect(body.choices[0]).toMatchObject({ message: { content: "Done writing." }, finish_reason: "stop" });
    expect(body.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 40 } });

    // Script exhausted (and a request without tools, like title generation): the fallback text.
    const third = (await (await post({ model: "m", messages: [user("title please")] })).json()) as {
      choices: { message: { content: string } }[];
    };
    expect(third.choices[0]!.message.content).toBe("Done.");

    const models = (await (await fetch(`${server.baseURL}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(["mock"]);
    expect((await fetch(`${server.baseURL}/nothing`)).status).toBe(404);

    const recorded = readFileSync(recordFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { seq: number; path: string; turn: number | null });
    expect(recorded.map((r) => [r.path, r.turn])).toEqual([
      ["/v1/chat/completions", 0],
      ["/v1/chat/completions", 1],
      ["/v1/chat/completions", null],
      ["/v1/models", null],
      ["/v1/nothing", null],
    ]);
    expect(server.requests()).toHaveLength(5);
    expect(server.unusedTurns()).toEqual([]);
  });

  it("answers a scripted error with its status", async () => {
    server = await startMockModel({ script: parseScript([{ error: { status: 429, message: "slow down" } }]) });
    const res = await post({ model: "m", tools, messages: [user("x")] });
    expect(res.status).toBe(429);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe("slow down");
  });

  it("serves from the CLI on a free port and prints it", async () => {
    const dir = tempDir();
    const scriptFile = join(dir, "script.json");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(scriptFile, JSON.stringify([{ text: "hello from the CLI" }]));
    const child = spawn(
      process.execPath,
      [join(packageRoot, "dist", "cli", "main.js"), "mock-model", "--script", scriptFile, "--port", "0"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => resolve(d.toString()));
        child.on("exit", (code) => reject(new Error(`exited ${code}`)));
      });
      const port = Number(/port (\d+)/.exec(line)?.[1]);
      expect(port).toBeGreaterThan(0);
      const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: "m", tools, messages: [user("hi")] }),
      });
      expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe(
        "hello from the CLI",
      );
    } finally {
      child.kill("SIGTERM");
    }
  });
});
