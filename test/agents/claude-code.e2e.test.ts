import { afterAll, beforeAll, describe, it } from "vitest";
import { anthropicMessages } from "../../src/mock-model/anthropic-messages.js";
import { expectPairResolvedAndAccounted, expectResumedRequestsShowEarlierTurns, runSamplePair, shellWrite, type PairRun } from "./helpers/pair-e2e.js";

/** Real Claude Code 2.1.332 runs one sample pair (both conditions) against the scripted Anthropic Messages server. */
describe("switch-swe run --agent claude-code (real Claude Code, sample pair)", () => {
  let run: PairRun;
  beforeAll(async () => {
    run = await runSamplePair("claude-code", (s) => [`base_url=${s.origin}`, "model=claude-sonnet-4-5", "effort=high"], (path, content) => ({
      name: "Bash",
      arguments: { command: shellWrite(path, content), description: `write ${path}` },
    }));
  }, 30 * 60_000);
  afterAll(async () => {
    await run?.server.close();
  });

  it("resolves both artifacts; the trajectories hold every token the server reported, once", () => {
    expectPairResolvedAndAccounted(run, "claude-code", "2.1.332");
  });

  it("resumed requests show the earlier turns to the model", () => {
    expectResumedRequestsShowEarlierTurns(run, (b) => anthropicMessages.view(b as Record<string, unknown>, "/v1/messages").lastUserText);
  });
});
