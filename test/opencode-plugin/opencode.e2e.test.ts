import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot, sampleDatasetDir } from "../../src/core/package-paths.js";
import { runProcess } from "../../src/core/process.js";
import { loadDataset } from "../../src/dataset/load.js";
import { parseScript } from "../../src/mock-model/script.js";
import { startMockModel, type MockModelServer } from "../../src/mock-model/server.js";
import { readTrajectory } from "../../src/formats/trajectory-file.js";
import type { SessionsFile } from "../../src/formats/sessions.js";
import { elidedNote } from "../../src/rcm/assembly.js";
import { tempDir } from "../helpers/synthetic-dataset.js";
import { lastUserText, userTexts } from "../rcm/helpers/bodies.js";
import { scriptForPair } from "../rcm/helpers/scripted-pair.js";
import { expectHostileCallConfined, hostileCommand, withFirstCall } from "../agents/helpers/pair-e2e.js";
import type { RunConfig } from "../../src/formats/run-config.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap, socat (run --network model relays the model endpoint): skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap", "socat");

const cliMain = join(packageRoot, "dist", "cli", "main.js");

async function cli(args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = {}) {
  const r = await runProcess(process.execPath, [cliMain, ...args], { timeoutMs, env: { ...process.env, ...env } });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The proof, with real OpenCode 1.18.33: one sample session pair runs end to end through
 * `switch-swe run --agent opencode` (RCM plugin in mode rcm) against the scripted model server, the
 * verifier resolves both artifacts the scripted tool calls wrote, and the requests the server recorded
 * for the resumed focus stages of the switched session hold every focus request verbatim, the focus
 * state record wherever earlier exchanges gave way to it, and no interruption request.
 */
describe.skipIf(missingTool)("switch-swe run --agent opencode (real OpenCode, sample pair)", () => {
  const root = tempDir("switch-swe-oc-e2e-");
  const runDir = join(root, "run");
  const recordFile = join(root, "requests.jsonl");
  let server: MockModelServer;
  let pairId = "";
  let result: { code: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    const sessionsFile = join(root, "sessions.json");
    const built = await cli(["sessions", "build", sampleDatasetDir, "--seed", "0", "--out", sessionsFile], 120_000);
    expect(built.code, built.stderr).toBe(0);
    const sessions = JSON.parse(readFileSync(sessionsFile, "utf8")) as SessionsFile;
    // The pair with the shortest switched schedule keeps the number of OpenCode runs small.
    const pair = [...sessions.pairs].sort((a, b) => a.schedules.switch.length - b.schedules.switch.length || a.id.localeCompare(b.id))[0]!;
    pairId = pair.id;
    const script = scriptForPair(loadDataset(sampleDatasetDir), pair, ["base", "switch"]);
    // Before the first writes, the model asks OpenCode's bash tool to get out of the sandbox.
    withFirstCall(script, { name: "bash", arguments: { command: hostileCommand(root), description: "look around" } });
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "script.json"), JSON.stringify(script, null, 2));
    server = await startMockModel({ script: parseScript(script), recordFile });
    result = await cli(
      [
        "run",
        "--dataset",
        sampleDatasetDir,
        "--sessions",
        sessionsFile,
        "--session",
        `${pair.id}.base`,
        "--session",
        `${pair.id}.switch`,
        "--agent",
        "opencode",
        "--agent-opt",
        "model=mock/scripted",
        "--agent-opt",
        `base_url=${server.baseURL}`,
        "--agent-opt",
        "rcm=rcm",
        "--request-timeout",
        "300",
        "--out",
        runDir,
        "--quiet",
      ],
      40 * 60_000,
      { SWITCH_SWE_CACHE: join(root, "cache") },
    );
  }, 45 * 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it("runs the pair and the verifier resolves both artifacts", () => {
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    for (const condition of ["base", "switch"]) {
      const session = `${pairId}.${condition}`;
      const verdict = JSON.parse(readFileSync(join(runDir, "sessions", session, "verdict.json"), "utf8")) as {
        applied: boolean;
        resolved: boolean;
      };
      expect(verdict.applied, session).toBe(true);
      expect(verdict.resolved, session).toBe(true);
      // OpenCode's write tool left the submission where the harness reads it (run --submission agent, the default).
      const summary = JSON.parse(readFileSync(join(runDir, "sessions", session, "session.json"), "utf8")) as { submission?: unknown };
      expect(summary.submission, session).toEqual({ mode: "agent", status: "submitted", normalized: [] });
      const lines = readTrajectory(join(runDir, "sessions", session, "trajectory.jsonl"));
      const events = lines.flatMap((l) => (l.type === "agent_event" ? [l.event] : []));
      // Tokens per model step, and the scripted writes as tool calls with their paths.
      expect(events.some((e) => e.kind === "model_call" && e.input_tokens > 0 && e.output_tokens > 0)).toBe(true);
      expect(events.some((e) => e.kind === "tool_call" && e.name === "write" && (e.paths?.length ?? 0) > 0)).toBe(true);
      expect(lines.filter((l) => l.type === "request_end").every((l) => l.type === "request_end" && l.outcome === "yielded")).toBe(true);
    }
  });

  it("runs sandboxed: a hostile bash call reads no dataset or HOME, writes nothing outside, leaves no daemon", () => {
    const config = JSON.parse(readFileSync(join(runDir, "run.json"), "utf8")) as RunConfig;
    expectHostileCallConfined({ root, server, config });
  });

  it("mode rcm: resumed focus stages see every focus request, the state record for what it replaced, and no interruption", () => {
    const lines = readTrajectory(join(runDir, "sessions", `${pairId}.switch`, "trajectory.jsonl"));
    const starts = lines.flatMap((l) => (l.type === "request_start" ? [l] : []));
    const focus = starts.filter((s) => s.role === "focus");
    const interruptions = starts.filter((s) => s.role === "interruption");
    const bodies = server.requests().filter((r) => r.path.endsWith("/chat/completions"));
    const resumed = focus.filter((s) => s.focus_return);
    expect(resumed.length).toBeGreaterThan(0);
    for (const step of resumed) {
      const mine = bodies.filter((b) => lastUserText(b.body).includes(step.message));
      expect(mine.length, `recorded requests for request ${step.index}`).toBeGreaterThan(0);
      const earlierFocus = focus.filter((s) => s.index <= step.index).map((s) => s.message);
      for (const b of mine) {
        const texts = userTexts(b.body);
        const all = texts.join("\n");
        for (const m of earlierFocus) expect(all.includes(m), `focus request verbatim in request ${step.index}`).toBe(true);
        // The record stands in for the exchanges it replaced; where nothing of the task was replaced, it
        // would only repeat what the model reads, and is left out.
        if (all.includes(elidedNote)) expect(all).toContain("<task-state");
        for (const s of interruptions)
          expect(all.includes(s.message), `interruption ${s.index} absent from request ${step.index}`).toBe(false);
      }
    }
  });
});
