import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { shellQuote } from "../../src/testbed/test-run.js";
import type { SessionsFile } from "../../src/formats/sessions.js";
import { cli } from "../helpers/cli.js";

/**
 * The proof of issue 27's "task environment inside the sandbox": a scripted `command` agent applies the
 * focus task's first stage (the artifact: later stages' tests must fail), then, in a copy of its workspace
 * with the task's held-out tests laid over it, runs the task's own test command inside its sandbox and
 * prints pytest's per-test summary. The verifier then scores the same artifact; both must agree test by test.
 */

export interface AgentAndVerifier {
  /** Per required test: what the agent's run inside the sandbox said (`missing` when it said nothing). */
  agent: Record<string, string>;
  /** Per required test: the verdict's status. */
  verdict: Record<string, string>;
  /** What the agent's python, python3 and pytest resolved to inside, and sys.prefix. */
  resolved: string;
  /** The `ENV ...` line: what the agent saw of the environment's directory (absent without one). */
  envLine: string | undefined;
  runJson: { sandbox: { task_environment?: { source: string; detail: string } } };
  out: string;
  session: string;
}

interface TaskJson {
  verifier: { command?: string; fail_to_pass: string[]; pass_to_pass: string[] };
}

/** Runs the base session of the first pair of `sessionsPath` with the scripted agent, verifies it, and returns both sides. */
export function agentAgainstVerifier(
  root: string,
  datasetDir: string,
  sessionsPath: string,
  testCommand: string,
  env: NodeJS.ProcessEnv,
): AgentAndVerifier {
  const sessions = JSON.parse(readFileSync(sessionsPath, "utf8")) as SessionsFile;
  const pair = sessions.pairs[0]!;
  const session = `${pair.focus}.base`;
  const taskDir = join(datasetDir, "tasks", pair.focus);
  const task = JSON.parse(readFileSync(join(taskDir, "task.json"), "utf8")) as TaskJson;
  const ids = [...new Set([...task.verifier.fail_to_pass, ...task.verifier.pass_to_pass])];
  const command = (task.verifier.command ?? testCommand)
    .replace("{junit}", '"$TMPDIR/report.xml"')
    .replace("{tests}", ids.map(shellQuote).join(" "));
  const script = join(root, "env-agent.sh");
  writeFileSync(
    script,
    [
      "#!/bin/sh",
      // Only the first request does the work (the base session's first request is the focus task's).
      '[ "$SWITCH_SWE_REQUEST_INDEX" = 0 ] || exit 0',
      `git apply "${join(taskDir, "stage-1.patch")}" || exit 1`,
      'cp -r . "$TMPDIR/copy" && cd "$TMPDIR/copy" || exit 1',
      `git apply "${join(taskDir, "tests.patch")}" || exit 1`,
      "echo \"RESOLVED python=$(command -v python) python3=$(command -v python3) pytest=$(command -v pytest) prefix=$(python3 -c 'import sys; print(sys.prefix)')\"",
      // What of the environment's directory the agent sees (the set-up checkout hidden) and whether it can write it.
      'if [ -n "$SWITCH_SWE_ENV" ]; then echo "ENV checkout_entries=$(ls -A "$SWITCH_SWE_ENV/checkout" | wc -l) writable=$(touch "$SWITCH_SWE_ENV/venv/x" 2>/dev/null && echo yes || echo no)"; fi',
      `${command} | sed -n 's/^\\(PASSED\\|FAILED\\|ERROR\\) \\([^ ]*\\).*/RESULT \\1 \\2/p'`,
      "exit 0",
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  const out = join(root, "run");
  // The script and the task's patches are named on the command line: bound read-only into the sandbox.
  const agentCommand = `sh ${script} ${join(taskDir, "stage-1.patch")} ${join(taskDir, "tests.patch")}`;
  const r = cli(
    [
      "run",
      "--dataset",
      datasetDir,
      "--sessions",
      sessionsPath,
      "--session",
      session,
      "--agent",
      "command",
      "--agent-opt",
      `command=${agentCommand}`,
      "--quiet",
      "--out",
      out,
    ],
    { env },
  );
  expect(r.code, r.stderr).toBe(0);
  const texts = readFileSync(join(out, "sessions", session, "trajectory.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; event?: { kind: string; text?: string } })
    .flatMap((l) => (l.event?.kind === "text" && l.event.text ? [l.event.text] : []));
  const agent = Object.fromEntries(ids.map((id) => [id, "missing"]));
  for (const t of texts) {
    const m = /^RESULT (PASSED|FAILED|ERROR) (\S+)$/.exec(t);
    if (m && m[2]! in agent) agent[m[2]!] = m[1]!.toLowerCase();
  }
  const verdict = JSON.parse(readFileSync(join(out, "sessions", session, "verdict.json"), "utf8")) as { tests: Record<string, string> };
  const runJson = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as AgentAndVerifier["runJson"];
  return {
    agent,
    verdict: verdict.tests,
    resolved: texts.find((t) => t.startsWith("RESOLVED ")) ?? texts.join("\n"),
    envLine: texts.find((t) => t.startsWith("ENV ")),
    runJson,
    out,
    session,
  };
}

/** Both sides agree on pass or not, test by test, and the artifact both passes and fails some (else the comparison shows nothing). */
export function expectSameOutcomes(x: AgentAndVerifier): void {
  const passed = (s: string | undefined) => s === "passed";
  const agentSide = Object.fromEntries(Object.entries(x.agent).map(([id, s]) => [id, passed(s)]));
  const verifierSide = Object.fromEntries(Object.keys(x.agent).map((id) => [id, passed(x.verdict[id])]));
  expect(agentSide).toEqual(verifierSide);
  expect(Object.values(agentSide)).toContain(true);
  expect(Object.values(agentSide)).toContain(false);
}
