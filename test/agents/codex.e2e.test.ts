import { afterAll, beforeAll, describe, it } from "vitest";
import { openaiResponses } from "../../src/mock-model/openai-responses.js";
import {
  expectHostileCallConfined,
  expectPairResolvedAndAccounted,
  hostileCommand,
  expectResumedRequestsShowEarlierTurns,
  runSamplePair,
  shellWrite,
  type PairRun,
} from "./helpers/pair-e2e.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap, socat (run --network model relays the model endpoint): skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "socat");

/** Real Codex 0.171.0 runs one sample pair (both conditions) against the scripted OpenAI Responses server. */
describe.skipIf(missingTool)("switch-swe run --agent codex (real Codex, sample pair)", () => {
  let run: PairRun;
  beforeAll(async () => {
    run = await runSamplePair(
      "codex",
      (s) => [`base_url=${s.baseURL}`, "model=gpt-5.5", "effort=high"],
      (path, content) => ({
        name: "exec_command",
        arguments: { cmd: shellWrite(path, content), workdir: "{{workspace}}" },
      }),
      { command: hostileCommand, call: (command) => ({ name: "exec_command", arguments: { cmd: command, workdir: "{{workspace}}" } }) },
    );
  }, 30 * 60_000);
  afterAll(async () => {
    await run?.server.close();
  });

  it("resolves both artifacts; the trajectories hold every token the server reported, once", () => {
    expectPairResolvedAndAccounted(run, "codex", "0.171.0");
  });

  it("runs sandboxed: a hostile shell call reads no dataset or HOME, writes nothing outside, leaves no daemon", () => {
    expectHostileCallConfined(run);
  });

  it("resumed requests show the earlier turns to the model", () => {
    expectResumedRequestsShowEarlierTurns(run, (b) => openaiResponses.view(b as Record<string, unknown>, "/v1/responses").lastUserText);
  });
});
