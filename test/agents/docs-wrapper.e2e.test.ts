import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { commandAgent } from "../../src/agents/command.js";
import { packageRoot } from "../../src/core/package-paths.js";
import { parseScript } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { tempDir } from "../helpers/temp.js";
import { conversationContext, converse, modelCallSums } from "./helpers/converse.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

let server: MockModelServer | null = null;
afterAll(async () => {
  await server?.close();
});

/** The worked `command` wrapper of docs/agents.md, run as the docs say, against the scripted server. */
describe.skipIf(missingTool)("docs/agents.md: the worked command wrapper", () => {
  it("keeps one conversation per session and prints per-request token differences", async () => {
    const doc = readFileSync(join(packageRoot, "docs", "agents.md"), "utf8");
    const code = /```js\n([\s\S]*?)```/.exec(doc)![1]!;
    const dir = tempDir("switch-swe-wrapper-");
    const wrapper = join(dir, "agent-wrapper.mjs");
    writeFileSync(wrapper, code);
    server = await startMockModel({
      script: parseScript([
        { match: "first", requests: "any", text: "one", usage: { prompt_tokens: 1000, completion_tokens: 20, cached_tokens: 100 } },
        { match: "second", requests: "any", text: "two", usage: { prompt_tokens: 1500, completion_tokens: 30 } },
      ]),
    });
    const provider = `model_providers.mock={name="mock",base_url="${server.baseURL}",env_key="SWITCH_SWE_TEST_KEY",wire_api="responses"}`;
    process.env.SWITCH_SWE_TEST_KEY = "k";
    const savedPath = process.env.PATH;
    process.env.PATH = `${join(packageRoot, "node_modules", ".bin")}:${savedPath ?? ""}`;
    try {
      const agent = commandAgent.create(
        commandAgent.parse({ command: `node ${wrapper} -c model_provider=mock -c '${provider}'`, env: "SWITCH_SWE_TEST_KEY" }),
      );
      const out = await converse(agent, conversationContext(dir, "c"), [
        { ws: "w00", text: "first" },
        { ws: "w01", text: "second" },
      ]);
      expect(out.map((o) => o.result.outcome)).toEqual(["yielded", "yielded"]);
      expect(modelCallSums(out[0]!.events)).toMatchObject({ calls: 1, input: 900, cached: 100, output: 20 });
      expect(modelCallSums(out[1]!.events)).toMatchObject({ calls: 1, input: 1500, cached: 0, output: 30 });
      expect(JSON.stringify(server.requests().at(-1)!.body)).toContain("first");
    } finally {
      process.env.PATH = savedPath;
    }
  }, 300_000);
});
