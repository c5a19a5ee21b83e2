import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CONDITIONS, renderPrompt, submissionSchema, type LoadedHandoffDataset, type Submission } from "../../src/handoff/index.js";
import { pilotPath, runCli, tempDir } from "./cli-helpers.js";
import { fixtureDataset, fixtureJson, pilotDataset } from "./fixtures.js";
import { startScriptedServer, type RecordedRequest, type ScriptStep, type ScriptedServer } from "./scripted-server.js";

/** Requests go out case by case, condition by condition: request i is this case and condition. */
function slot(loaded: LoadedHandoffDataset, i: number) {
  const c = loaded.dataset.cases[Math.floor(i / CONDITIONS.length)]!;
  return { c, condition: CONDITIONS[i % CONDITIONS.length]! };
}

/** The answer key of whichever case and condition the request's prompt belongs to. */
function keyReply(loaded: LoadedHandoffDataset, req: RecordedRequest): ScriptStep {
  const text = promptOf(req);
  for (const c of loaded.dataset.cases) {
    for (const k of CONDITIONS) if (renderPrompt(c, k) === text) return { text: JSON.stringify(c.answer) };
  }
  throw new Error("a prompt of no case");
}

function promptOf(req: RecordedRequest): unknown {
  const messages = req.body.messages ?? [];
  const content = messages[messages.length - 1]?.content;
  // The SDK may send the text as a string or as one text part.
  return Array.isArray(content) ? (content as { text: string }[]).map((p) => p.text).join("") : content;
}

function readSubmission(file: string): Submission {
  return submissionSchema.parse(JSON.parse(readFileSync(file, "utf8")));
}

/** The prompt of request i, checking it came alone in a fresh conversation. */
function userText(server: ScriptedServer, i: number): unknown {
  const messages = server.requests[i]!.body.messages!;
  expect(messages).toHaveLength(1);
  expect(messages[0]!.role).toBe("user");
  return promptOf(server.requests[i]!);
}

describe("handoff run against a scripted OpenAI-compatible server", () => {
  let dir: string;
  let promptsDir: string;
  let fixturePath: string;
  let server: ScriptedServer | undefined;
  const pilot = pilotDataset();
  const fixture = fixtureDataset();
  const noKey = { OPENAI_API_KEY: "" };

  beforeAll(async () => {
    dir = tempDir();
    promptsDir = join(dir, "prompts");
    fixturePath = join(dir, "fixture.json");
    writeFileSync(fixturePath, JSON.stringify(fixtureJson()));
    expect((await runCli(["handoff", "prompts", pilotPath, "--out", promptsDir])).code).toBe(0);
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("sends every prompt once, keeps an invalid reply unrepaired, records everything and resumes", async () => {
    const invalidAt = 4;
    server = await startScriptedServer((i, req) => {
      if (i === invalidAt) return { text: `Sure! Here is my answer: ${JSON.stringify(slot(pilot, i).c.answer)}` };
      if (i === 2) return { text: "```json\n" + JSON.stringify(slot(pilot, i).c.answer, null, 2) + "\n```" };
      return keyReply(pilot, req);
    });
    const out = join(dir, "pilot-run.json");
    const args = ["handoff", "run", pilotPath, "--model", "local:test-model", "--base-url", server.baseURL, "--out", out];
    const r = await runCli(args, noKey);
    expect(r.stderr).toBe("note: OPENAI_API_KEY is not set; requests carry no API key\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("17 answered, 1 not valid JSON, 0 already answered, 0 failed (1800 input, 360 output tokens this run)");

    // One request per case and condition: nothing was retried, by us or by the SDK.
    expect(server.requests).toHaveLength(18);
    for (let i = 0; i < 18; i++) {
      const req = server.requests[i]!;
      const { c, condition } = slot(pilot, i);
      expect(req.path).toBe("/v1/chat/completions");
      expect(req.headers.authorization).toBeUndefined();
      expect(req.body.model).toBe("test-model");
      expect(req.body.temperature).toBe(0);
      expect(req.body.stream ?? false).toBe(false);
      expect(userText(server, i)).toBe(readFileSync(join(promptsDir, `${c.id}.${condition}.txt`), "utf8"));
    }

    const sub = readSubmission(out);
    expect(sub.record).toMatchObject({
      provider: "local",
      model: "test-model",
      model_version: "test-model-2025-01-01",
      temperature: 0,
      system_prompt: "",
      host: server.baseURL,
      retry_policy: { retries: 0, retry_on: [], delay_ms: 0 },
      dataset: { file: "pilot.json", version: "pilot-1", sha256: pilot.sha256 },
      prompt_version: 1,
      usage: { input_tokens: 1800, output_tokens: 360, total_tokens: 2160 },
    });
    expect(Number.isNaN(Date.parse(sub.record.date))).toBe(false);
    const bad = slot(pilot, invalidAt);
    expect(sub.responses?.[bad.c.id]?.[bad.condition]).toMatchObject({ outcome: "invalid-json", attempts: 1 });
    expect(sub.answers[bad.c.id]?.[bad.condition]).toBeUndefined();
    expect(sub.answers[slot(pilot, 2).c.id]?.[slot(pilot, 2).condition]).toEqual(slot(pilot, 2).c.answer);

    const raw = readFileSync(join(dir, "pilot-run.raw.jsonl"), "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(raw).toHaveLength(18);
    expect(raw[invalidAt]).toMatchObject({ case: bad.c.id, condition: bad.condition, attempt: 1, outcome: "invalid-json" });
    expect(String(raw[invalidAt]!.text)).toMatch(/^Sure! Here is my answer: /);

    const scored = await runCli(["handoff", "score", pilotPath, "--submission", out, "--format", "json"]);
    expect(scored.code).toBe(0);
    const report = JSON.parse(scored.stdout) as {
      overall: number;
      cases: Record<string, Record<string, { score: number }>>;
      problems: { path: string; message: string }[];
    };
    expect(report.overall).toBe(94.4444);
    expect(report.cases[bad.c.id]![bad.condition]!.score).toBe(0);
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]!.path).toBe(`responses.${bad.c.id}.${bad.condition}`);
    expect(report.problems[0]!.message).toMatch(/^the response is not valid JSON \(.+\); every field scores 0$/);

    // Resuming a finished run asks nothing (the invalid reply counts as answered: no silent retry).
    const again = await runCli(args, noKey);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("skipping 18 case/conditions already answered, 0 to go");
    expect(server.requests).toHaveLength(18);

    // Resuming a partial run asks only what is missing.
    const partial = readSubmission(out);
    const gone = slot(pilot, 7);
    delete partial.answers[gone.c.id]![gone.condition];
    delete partial.responses![gone.c.id]![gone.condition];
    writeFileSync(out, JSON.stringify(partial));
    const resumed = await runCli(args, noKey);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("skipping 17 case/conditions already answered, 1 to go");
    expect(server.requests).toHaveLength(19);
    expect(userText(server, 18)).toBe(readFileSync(join(promptsDir, `${gone.c.id}.${gone.condition}.txt`), "utf8"));
    expect(readSubmission(out).record.usage).toEqual({ input_tokens: 1900, output_tokens: 380, total_tokens: 2280 });

    // Other settings on the same file are refused rather than mixed into one record.
    const other = await runCli([...args, "--temperature", "0.7"], noKey);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`${out}: record.temperature: differs from this run's settings`);
  });

  it("sends the API key from the named variable, and the declared system prompt", async () => {
    server = await startScriptedServer((_i, req) => keyReply(fixture, req));
    const out = join(dir, "keyed.json");
    const r = await runCli(
      [
        "handoff",
        "run",
        fixturePath,
        "--model",
        "local:m",
        "--base-url",
        server.baseURL,
        "--out",
        out,
        "--api-key-env",
        "MY_KEY",
        "--system-prompt",
        "Be careful.",
      ],
      { MY_KEY: "sk-test" },
    );
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(6);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-test");
    expect(server.requests[0]!.body.messages![0]).toEqual({ role: "system", content: "Be careful." });
    expect(readSubmission(out).record.system_prompt).toBe("Be careful.");
  });

  it("retries an invalid reply only when that was declared, and records the attempts", async () => {
    server = await startScriptedServer((i, req) => (i === 0 ? { text: "not json" } : keyReply(fixture, req)));
    const out = join(dir, "retried.json");
    const r = await runCli(
      [
        "handoff",
        "run",
        fixturePath,
        "--model",
        "local:m",
        "--base-url",
        server.baseURL,
        "--out",
        out,
        "--retries",
        "1",
        "--retry-on",
        "invalid-json",
        "--retry-delay-ms",
        "0",
      ],
      noKey,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("f1 transcript: not valid JSON");
    expect(r.stdout).toContain("retry 1 of 1 as declared");
    expect(server.requests).toHaveLength(7);
    expect(userText(server, 1)).toBe(userText(server, 0));
    const sub = readSubmission(out);
    expect(sub.record.retry_policy).toEqual({ retries: 1, retry_on: ["invalid-json"], delay_ms: 0 });
    expect(sub.responses?.f1?.transcript).toMatchObject({ outcome: "answered", attempts: 2 });
    expect(readFileSync(join(dir, "retried.raw.jsonl"), "utf8").trimEnd().split("\n")).toHaveLength(7);
  });

  it("does not record a failed request, exits 1, and asks it again on the next run", async () => {
    server = await startScriptedServer((i, req) => (i === 1 ? { status: 500, error: "boom" } : keyReply(fixture, req)));
    const out = join(dir, "failed.json");
    const args = ["handoff", "run", fixturePath, "--model", "local:m", "--base-url", server.baseURL, "--out", out];
    const r = await runCli(args, noKey);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("f1 memory: request failed (HTTP 500");
    expect(r.stdout).toContain("5 answered, 0 not valid JSON, 0 already answered, 1 failed");
    expect(server.requests).toHaveLength(6);
    const sub = readSubmission(out);
    expect(sub.answers.f1?.memory).toBeUndefined();
    expect(sub.responses?.f1?.memory).toBeUndefined();

    const again = await runCli(args, noKey);
    expect(again.code).toBe(0);
    expect(server.requests).toHaveLength(7);
    const scored = await runCli(["handoff", "score", fixturePath, "--submission", out, "--format", "json"]);
    expect((JSON.parse(scored.stdout) as { overall: number }).overall).toBe(100);
  });
});
