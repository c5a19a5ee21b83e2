import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { claudeCodeAgent } from "../../src/agents/claude-code.js";
import { codexAgent } from "../../src/agents/codex.js";
import { geminiAgent } from "../../src/agents/gemini.js";
import type { AgentFactory } from "../../src/agents/types.js";
import { parseScript } from "../../src/mock-model/script.js";
import { startMockModel } from "../../src/mock-model/server.js";
import { tempDir } from "../helpers/synthetic-dataset.js";
import { conversationContext, converse, modelCallSums } from "./helpers/converse.js";

const cases: [AgentFactory<unknown>, string, string, Record<string, unknown>, Record<string, unknown>][] = [
  [claudeCodeAgent as AgentFactory<unknown>, "claude", "origin", { model: "claude-sonnet-4-5" }, { name: "Write", arguments: { file_path: "{{workspace}}/a.txt", content: "hi\n" } }],
  [codexAgent as AgentFactory<unknown>, "codex", "baseUrl", { model: "gpt-5.5" }, { name: "exec_command", arguments: { cmd: "printf 'hi\\n' > a.txt", workdir: "{{workspace}}" } }],
  [geminiAgent as AgentFactory<unknown>, "gemini", "origin", { model: "gemini-3-pro" }, { name: "write_file", arguments: { file_path: "{{workspace}}/a.txt", content: "hi\n" } }],
];

describe("smoke", () => {
  for (const [factory, cli, urlKey, opts, call] of cases) {
    it(cli, async () => {
      const root = tempDir(`w14-${cli}-`);
      const server = await startMockModel({ script: parseScript([
        { match: "make file", tool_calls: [call as never], usage: { prompt_tokens: 1000, completion_tokens: 40, cached_tokens: 300, reasoning_tokens: 10 } },
        { match: "make file", text: "Made it.", usage: { prompt_tokens: 1200, completion_tokens: 10 } },
        { match: "second", text: "Second.", usage: { prompt_tokens: 1500, completion_tokens: 15 } },
      ]) });
      const agent = factory.create(factory.parse({ base_url: (server as unknown as Record<string, string>)[urlKey]!, ...opts }));
      const ctx = conversationContext(root, "5b1f3c2e-8a4d-4e6f-9b0a-1c2d3e4f5a6b");
      const out = await converse(agent, ctx, [{ ws: "w01", text: "please make file" }, { ws: "w02", text: "second request" }]);
      console.log(cli, JSON.stringify(out.map((o) => [o.result, o.events.map((e) => e.kind)])));
      console.log(cli, modelCallSums(out.flatMap((o) => o.events)), server.requests().map((r) => [r.path, r.turn, r.usage]));
      console.log(await agent.describe!());
      console.log(readFileSync(join(ctx.workspaces.w01, "a.txt"), "utf8"));
      mkdirSync(join(__dirname, "fixtures"), { recursive: true });
      copyFileSync(join(ctx.logDir, `${cli}-output.jsonl`), join(__dirname, "fixtures", `${cli}-stream.jsonl`));
      await server.close();
    }, 180_000);
  }
});
