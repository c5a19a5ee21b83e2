import { afterAll, beforeAll, describe, it } from "vitest";
import { geminiGenerate } from "../../src/mock-model/gemini.js";
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

/** Real Gemini CLI 0.61.0 runs one sample pair (both conditions) against the scripted Gemini server. */
describe.skipIf(missingTool)("switch-swe run --agent gemini (real Gemini CLI, sample pair)", () => {
  let run: PairRun;
  beforeAll(async () => {
    run = await runSamplePair(
      "gemini",
      (s) => [`base_url=${s.origin}`, "model=gemini-3-pro"],
      (path, content) => ({
        name: "run_shell_command",
        arguments: { command: shellWrite(path, content) },
      }),
      { command: hostileCommand, call: (command) => ({ name: "run_shell_command", arguments: { command } }) },
    );
  }, 30 * 60_000);
  afterAll(async () => {
    await run?.server.close();
  });

  it("resolves both artifacts; the trajectories hold every token the server reported, once", () => {
    expectPairResolvedAndAccounted(run, "gemini", "0.61.0");
  });

  it("runs sandboxed: a hostile shell call reads no dataset or HOME, writes nothing outside, leaves no daemon", () => {
    expectHostileCallConfined(run);
  });

  it("resumed requests show the earlier turns to the model", () => {
    expectResumedRequestsShowEarlierTurns(
      run,
      (b) => geminiGenerate.view(b as Record<string, unknown>, "/v1beta/models/m:streamGenerateContent").lastUserText,
    );
  });
});
