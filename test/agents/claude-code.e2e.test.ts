import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropicMessages } from "../../src/mock-model/anthropic-messages.js";
import { installedClaude } from "../helpers/agent-cli.js";
import {
  expectHostileCallConfined,
  expectPairResolvedAndAccounted,
  hostileCommand,
  expectResumedRequestsShowEarlierTurns,
  reportMarkdown,
  runSamplePair,
  shellWrite,
  type PairRun,
} from "./helpers/pair-e2e.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap, socat (run --network model relays the model endpoint): skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "socat");

/** Real Claude Code 2.1.332 runs one sample pair (both conditions) against the scripted Anthropic Messages server. */
describe.skipIf(missingTool)("switch-swe run --agent claude-code (real Claude Code, sample pair)", () => {
  let run: PairRun;
  beforeAll(async () => {
    const bin = installedClaude();
    run = await runSamplePair(
      "claude-code",
      (s) => [`base_url=${s.origin}`, "model=claude-sonnet-4-5", "effort=high", `bin=${bin}`],
      (path, content) => ({
        name: "Bash",
        arguments: { command: shellWrite(path, content), description: `write ${path}` },
      }),
      { command: hostileCommand, call: (command) => ({ name: "Bash", arguments: { command, description: "look around" } }) },
      // The submission through Claude Code's own file tool, where the finalization request asks for it.
      (path, content) => ({ name: "Write", arguments: { file_path: `{{workspace}}/${path}`, content } }),
    );
  }, 30 * 60_000);
  afterAll(async () => {
    await run?.server.close();
  });

  it("resolves both artifacts; the trajectories hold every token the server reported, once", () => {
    expectPairResolvedAndAccounted(run, "claude-code", "2.1.332");
  });

  it("writes its submission with its Write tool where the harness reads it (run --submission agent, the default)", () => {
    for (const condition of ["base", "switch"] as const) {
      const writes = run
        .trajectory(condition)
        .flatMap((l) => (l.type === "agent_event" && l.event.kind === "tool_call" && l.event.name === "Write" ? [l.event] : []));
      expect(
        writes.map((w) => (w.args as { file_path?: string }).file_path),
        condition,
      ).toEqual([expect.stringMatching(/^\/workspace\/[^/]+\/w0\d\/final\.patch$/)]);
      expect(run.submission(condition), condition).toEqual({ mode: "agent", status: "submitted", normalized: [] });
    }
  });

  it("the report's harness table names the CLI, its version, model and effort", async () => {
    expect(await reportMarkdown(run)).toMatch(/\| claude-code \| 2\.1\.332 \| claude-sonnet-4-5 \| high \|/);
  });

  it("runs sandboxed: a hostile shell call reads no dataset or HOME, writes nothing outside, leaves no daemon", () => {
    expectHostileCallConfined(run);
  });

  it("resumed requests show the earlier turns to the model", () => {
    expectResumedRequestsShowEarlierTurns(run, (b) => anthropicMessages.view(b as Record<string, unknown>, "/v1/messages").lastUserText);
  });
});
