import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { packageRoot, sampleDatasetDir } from "../../../src/core/package-paths.js";
import { runProcess } from "../../../src/core/process.js";
import { loadDataset } from "../../../src/dataset/load.js";
import type { ScriptInput, ScriptToolCall } from "../../../src/mock-model/script.js";
import { parseScript } from "../../../src/mock-model/script.js";
import { startMockModel, type MockModelServer, type RecordedRequest } from "../../../src/mock-model/server.js";
import type { RunConfig } from "../../../src/formats/run-config.js";
import { readTrajectory } from "../../../src/formats/trajectory-file.js";
import { tokenTotal, type TrajectoryLine } from "../../../src/formats/trajectory.js";
import type { SessionsFile } from "../../../src/formats/sessions.js";
import { tempDir } from "../../helpers/temp.js";
import { requestKey, scriptForPair } from "../../rcm/helpers/scripted-pair.js";

const cliMain = join(packageRoot, "dist", "cli", "main.js");

async function cli(args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = {}) {
  const r = await runProcess(process.execPath, [cliMain, ...args], { timeoutMs, env: { ...process.env, ...env } });
  return { code: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** A shell command that writes one file of the workspace byte for byte (base64, so any content is safe). */
export function shellWrite(path: string, content: string): string {
  const b64 = Buffer.from(content, "utf8").toString("base64");
  // No command substitution: Gemini CLI refuses shell commands that contain one.
  return `mkdir -p '{{workspace}}/${dirname(path)}' && printf '%s' '${b64}' | base64 -d > '{{workspace}}/${path}'`;
}

export interface PairRun {
  code: number | null;
  root: string;
  output: string;
  runDir: string;
  pairId: string;
  server: MockModelServer;
  config: RunConfig;
  trajectory(condition: "base" | "switch"): TrajectoryLine[];
  verdict(condition: "base" | "switch"): { applied: boolean; resolved: boolean };
  /** session.json's `submission`. */
  submission(condition: "base" | "switch"): unknown;
}

/**
 * Runs the sample pair with the shortest switched schedule, both conditions, through
 * `switch-swe run --agent AGENT` against a scripted server whose turns write each stage's files with
 * `writeCall` (the CLI's own tool).
 */
export async function runSamplePair(
  agent: string,
  options: (server: MockModelServer) => string[],
  writeCall: (path: string, content: string) => ScriptToolCall,
  /** Adds a hostile shell call before the first scripted writes (see hostileCommand). */
  hostile?: { command: (root: string) => string; call: (command: string) => ScriptToolCall },
  /** The tool call that writes the submission at finalization (default: writeCall). */
  submitCall?: (path: string, content: string) => ScriptToolCall,
): Promise<PairRun> {
  const root = tempDir(`switch-swe-${agent}-e2e-`);
  const runDir = join(root, "run");
  const sessionsFile = join(root, "sessions.json");
  const built = await cli(["sessions", "build", sampleDatasetDir, "--seed", "0", "--out", sessionsFile], 120_000);
  expect(built.code, built.stderr).toBe(0);
  const sessions = JSON.parse(readFileSync(sessionsFile, "utf8")) as SessionsFile;
  const pair = [...sessions.pairs].sort((a, b) => a.schedules.switch.length - b.schedules.switch.length || a.id.localeCompare(b.id))[0]!;
  const script = scriptForPair(loadDataset(sampleDatasetDir), pair, ["base", "switch"], writeCall, submitCall);
  if (hostile) withFirstCall(script, hostile.call(hostile.command(root)));
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "script.json"), JSON.stringify(script, null, 2));
  const server = await startMockModel({ script: parseScript(script), recordFile: join(root, "requests.jsonl") });
  const r = await cli(
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
      agent,
      ...options(server).flatMap((o) => ["--agent-opt", o]),
      "--request-timeout",
      "300",
      "--out",
      runDir,
      "--quiet",
    ],
    40 * 60_000,
    { SWITCH_SWE_CACHE: join(root, "cache") },
  );
  const sessionDir = (c: string) => join(runDir, "sessions", `${pair.id}.${c}`);
  return {
    code: r.code,
    root,
    output: `${r.stdout}\n${r.stderr}`,
    runDir,
    pairId: pair.id,
    server,
    config: JSON.parse(readFileSync(join(runDir, "run.json"), "utf8")) as RunConfig,
    trajectory: (c) => readTrajectory(join(sessionDir(c), "trajectory.jsonl")),
    verdict: (c) => JSON.parse(readFileSync(join(sessionDir(c), "verdict.json"), "utf8")) as { applied: boolean; resolved: boolean },
    submission: (c) => (JSON.parse(readFileSync(join(sessionDir(c), "session.json"), "utf8")) as { submission?: unknown }).submission,
  };
}

/** `switch-swe report RUN_DIR --format markdown`. */
export async function reportMarkdown(run: PairRun): Promise<string> {
  const r = await cli(["report", run.runDir, "--format", "markdown"], 120_000);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

/** Every token the server reported, once: input (cached part included) plus output (reasoning included). */
export function serverTokens(requests: readonly RecordedRequest[]): number {
  return requests.reduce((n, r) => n + (r.usage ? r.usage.inputTokens + r.usage.outputTokens : 0), 0);
}

/** Every token the trajectories of both sessions recorded, once (the project's one accounting rule). */
export function trajectoryTokens(run: PairRun): number {
  return (["base", "switch"] as const)
    .flatMap((c) => run.trajectory(c))
    .reduce((n, l) => n + (l.type === "agent_event" && l.event.kind === "model_call" ? tokenTotal(l.event) : 0), 0);
}

/** The checks every CLI's end-to-end run must pass. */
export function expectPairResolvedAndAccounted(run: PairRun, harness: string, version: string): void {
  expect(run.code, run.output).toBe(0);
  expect(run.config.agent.harness).toMatchObject({ name: harness, version });
  // Real agents submit their patch (run --submission agent, the default): the CLI wrote it where the harness reads it.
  expect(run.config.submission).toBe("agent");
  for (const condition of ["base", "switch"] as const) {
    expect(run.submission(condition), condition).toEqual({ mode: "agent", status: "submitted", normalized: [] });
    const verdict = run.verdict(condition);
    expect(verdict.applied, condition).toBe(true);
    expect(verdict.resolved, condition).toBe(true);
    const lines = run.trajectory(condition);
    const events = lines.flatMap((l) => (l.type === "agent_event" ? [l.event] : []));
    expect(
      events.some((e) => e.kind === "model_call" && e.input_tokens > 0 && e.output_tokens > 0),
      condition,
    ).toBe(true);
    expect(
      events.some((e) => e.kind === "tool_call"),
      condition,
    ).toBe(true);
    const ends = lines.flatMap((l) => (l.type === "request_end" ? [l] : []));
    expect(ends.length).toBeGreaterThan(0);
    expect(
      ends.filter((l) => l.outcome !== "yielded"),
      condition,
    ).toEqual([]);
  }
  expect(trajectoryTokens(run)).toBe(serverTokens(run.server.requests()));
}

/**
 * A resumed conversation is the same conversation: every model request made for a focus request
 * right after a switch holds the earlier requests of the session (base: its own; switch: every one).
 */
export function expectResumedRequestsShowEarlierTurns(run: PairRun, lastUserText: (body: unknown) => string): void {
  const lines = run.trajectory("switch");
  const starts = lines.flatMap((l) => (l.type === "request_start" ? [l] : []));
  const ends = lines.flatMap((l) => (l.type === "request_end" ? [l] : []));
  const returns = starts.filter((s) => s.focus_return);
  expect(returns.length).toBeGreaterThan(0);
  const generating = run.server.requests().filter((r) => r.usage !== undefined);
  for (const step of returns) {
    // The model requests made while this request ran (the base session sends the same focus texts).
    const end = ends.find((e) => e.index === step.index && e.time >= step.time)!;
    const mine = generating.filter(
      (r) => r.time >= step.time && r.time <= end.time && lastUserText(r.body).includes(requestKey(step.message)),
    );
    expect(mine.length, `model requests for request ${step.index}`).toBeGreaterThan(0);
    for (const r of mine) {
      const body = JSON.stringify(r.body);
      for (const earlier of starts.filter((s) => s.index < step.index)) {
        expect(
          body.includes(JSON.stringify(requestKey(earlier.message)).slice(1, -1)),
          `request ${earlier.index} in the model request for ${step.index}`,
        ).toBe(true);
      }
    }
  }
}

/** Puts `call` before the scripted writes of the first turn that has tool calls. */
export function withFirstCall(script: ScriptInput, call: ScriptToolCall): void {
  const turns = (Array.isArray(script) ? script : script.turns) as { tool_calls?: ScriptToolCall[] }[];
  const first = turns.find((t) => t.tool_calls?.length)!;
  first.tool_calls = [call, ...first.tool_calls!];
}

/** The `sleep` duration that marks the hostile daemon in /proc (unique to this test process). */
const daemonMark = String(600_000 + (process.pid % 100_000));

/**
 * A shell command an agent's tool runs on the model's behalf that tries to get out of the sandbox:
 * read the dataset's held-out tests.patch, find a file of the caller's HOME, write outside the workspaces, and
 * leave a `setsid`/`nohup` daemon behind. Each attempt prints what happened; the tool's output reaches
 * the model server in the next request.
 */
export function hostileCommand(root: string): string {
  const testsPatch = join(sampleDatasetDir, "tasks", readdirSync(join(sampleDatasetDir, "tasks"))[0]!, "tests.patch");
  // LEAK''-X prints LEAK-X: the words appear in the tool's output, not in the command the model sent.
  return [
    `(test -r '${testsPatch}' && echo LEAK''-DATASET || echo NO''-DATASET)`,
    `(test -e '${homeProbe()}' && echo LEAK''-HOME || echo NO''-HOME)`,
    `(echo pwned > '${join(root, "escaped.txt")}' && echo LEAK''-WRITE || echo NO''-WRITE)`,
    `(setsid nohup sleep ${daemonMark} > /dev/null 2>&1 &)`,
    "echo DAEMON''-STARTED",
  ].join("; ");
}

/**
 * A file of the caller's HOME the sandbox must hide: one not on the way to a PATH directory (those
 * are bound read-only, e.g. ~/.cargo/bin or pyenv's shims), else the HOME itself.
 */
function homeProbe(): string {
  const home = process.env.HOME ?? "/root";
  const onPath = (process.env.PATH ?? "").split(":").filter((p) => p.startsWith(`${home}/`));
  const entries = existsSync(home) ? readdirSync(home) : [];
  const hidden = entries.find((e) => !onPath.some((p) => p === join(home, e) || p.startsWith(`${join(home, e)}/`)));
  return hidden ? join(home, hidden) : home;
}

/** Host processes whose command line is the hostile daemon's. */
function daemons(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (argv.includes(daemonMark) && argv.some((a) => a.endsWith("sleep"))) found.push(`${pid}: ${argv.join(" ")}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The hostile call ran inside the sandbox and failed at everything: evidence from the model server, the disk and /proc. */
export function expectHostileCallConfined(run: Pick<PairRun, "root" | "server" | "config">): void {
  expect(run.config.sandbox).toMatchObject({ mode: "bwrap", network: "model", allowed_endpoints: [run.server.origin] });
  const seen = run.server
    .requests()
    .map((r) => JSON.stringify(r.body))
    .join("\n");
  expect(seen, "the hostile command's output reached the model").toContain("DAEMON-STARTED");
  for (const word of ["DATASET", "HOME", "WRITE"]) {
    expect(seen, word).toContain(`NO-${word}`);
    expect(seen, word).not.toContain(`LEAK-${word}`);
  }
  expect(existsSync(join(run.root, "escaped.txt"))).toBe(false);
  expect(daemons()).toEqual([]);
}
