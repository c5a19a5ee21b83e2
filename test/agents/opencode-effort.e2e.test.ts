import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { opencodeAgent } from "../../src/agents/opencode.js";
import { parseScript } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { tempDir } from "../helpers/temp.js";
import { conversationContext, converse } from "./helpers/converse.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap, socat (run --network model relays the model endpoint): skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "socat");

let server: MockModelServer | null = null;
afterAll(async () => {
  await server?.close();
});

/** Real OpenCode with effort=high against a custom endpoint: the variant reaches the model request. */
describe.skipIf(missingTool)("opencode effort (variant)", () => {
  it("sends the reasoning effort of the chosen variant", async () => {
    server = await startMockModel({ script: parseScript([{ match: "hello", text: "hi" }]) });
    const agent = opencodeAgent.create(opencodeAgent.parse({ model: "mock/scripted", base_url: server.baseURL, effort: "high" }));
    const [r] = await converse(agent, conversationContext(tempDir("switch-swe-oc-effort-"), "c"), [{ ws: "w00", text: "hello" }]);
    expect(r!.result.outcome, r!.result.detail).toBe("yielded");
    const agentCalls = server.requests().filter((q) => q.turn !== null);
    expect(agentCalls.length).toBeGreaterThan(0);
    for (const q of agentCalls) expect(q.body).toMatchObject({ reasoning_effort: "high" });
  }, 300_000);

  it("installs nothing from npm into its private config directory (no registry wait at start)", async () => {
    server ??= await startMockModel({ script: parseScript([{ match: "hello", text: "hi" }]) });
    const agent = opencodeAgent.create(opencodeAgent.parse({ model: "mock/scripted", base_url: server.baseURL }));
    const ctx = conversationContext(tempDir("switch-swe-oc-deps-"), "c");
    const [r] = await converse(agent, ctx, [{ ws: "w00", text: "hello" }]);
    expect(r!.result.outcome, r!.result.detail).toBe("yielded");
    // Unsandboxed, the registry is in reach here: without the settled lock file OpenCode would fetch the package.
    const home = join(ctx.stateDir, "opencode-home");
    expect(readdirSync(join(home, ".config", "opencode", "node_modules"))).toEqual([]);
    const log = readdirSync(join(home, ".local", "share", "opencode", "log"))
      .map((f) => readFileSync(join(home, ".local", "share", "opencode", "log", f), "utf8"))
      .join("");
    expect(log).toContain("creating instance");
    expect(log).not.toContain("dependency install");
  }, 300_000);
});
