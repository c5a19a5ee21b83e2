import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { observePhases, type HarnessPhase } from "../../src/run/phase-timing.js";
import { runSessions } from "../../src/run/runner.js";
import { sessionId } from "../../src/formats/sessions.js";
import { makeRunFixture, type RunFixture } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

let fx: RunFixture;

beforeAll(() => {
  fx = makeRunFixture(1);
});

afterEach(() => observePhases(null));

// Runs the harness with its default sandbox: skipped with the reason where bwrap is missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");
describe("the harness's phase marks (what bench:run measures)", () => {
  it.skipIf(missingTool)("mark every phase of a session in order, each start closed by its end, the trajectory lines inside", async () => {
    const edges: string[] = [];
    observePhases((phase: HarnessPhase, edge) => edges.push(`${edge} ${phase}`));
    const pair = fx.sessions.pairs[0]!;
    const outcome = await runSessions({
      out: join(fx.root, "run-phases"),
      resume: false,
      dataset: fx.datasetDir,
      sessions: fx.sessionsPath,
      agent: "command",
      agentOptions: { command: 'echo x >> "$SWITCH_SWE_WORKSPACE/notes.txt"' },
      sessionIds: [sessionId(pair.id, "base")],
      concurrency: 1,
      keepWorkspaces: false,
      verify: false,
      progress: () => undefined,
    });
    expect(outcome.finished).toHaveLength(1);
    // Properly nested: every end closes the innermost open phase.
    const open: string[] = [];
    for (const e of edges) {
      const [edge, phase] = e.split(" ");
      if (edge === "start") open.push(phase!);
      else expect(open.pop()).toBe(phase);
    }
    expect(open).toEqual([]);
    const outer = edges.filter((e) => !e.endsWith(" trajectory") && e.startsWith("start")).map((e) => e.slice(6));
    const requests = pair.schedules.base.length;
    // The attempt's confinement is one agent_start mark, whatever the backend opens in it (bubblewrap's
    // `--network model` relays too), the agent's conversation the second.
    const sandbox = JSON.parse(readFileSync(join(fx.root, "run-phases", "run.json"), "utf8")).sandbox;
    // A confined agent gets the task's environment, looked up (or built) before the agent starts.
    const taskEnv = sandbox?.task_environment !== undefined ? ["workspace_setup"] : [];
    expect(outer).toEqual([
      "workspace_setup",
      "workspace_setup",
      "evidence",
      ...taskEnv,
      "agent_start",
      "agent_start",
      ...Array.from({ length: requests }, () => ["request", "evidence"]).flat(),
      "cleanup",
      "artifact",
      "cleanup",
    ]);
    // session_start, two lines per request and a workspace_state line after each, one before, session_end.
    expect(edges.filter((e) => e === "start trajectory")).toHaveLength(3 + 3 * requests);
  });

  it("pass values through without an observer, and close a phase whose function throws", async () => {
    const { timed, timedSync } = await import("../../src/run/phase-timing.js");
    expect(await timed("request", async () => 1)).toBe(1);
    expect(timedSync("trajectory", () => 2)).toBe(2);
    const edges: string[] = [];
    observePhases((p, e) => edges.push(`${e} ${p}`));
    await expect(timed("artifact", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(edges).toEqual(["start artifact", "end artifact"]);
  });
});
