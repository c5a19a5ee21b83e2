import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { skipWithout } from "../helpers/tools.js";
import { agentAgainstVerifier, expectSameOutcomes } from "./task-env-agent.js";

// Needs bwrap (the agent's sandbox is the point): skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const testCommand = "python3 -m pytest -rA -p no:cacheprovider --junitxml={junit} {tests}";

/**
 * A venv made without the network: the host's packages (pytest) visible through it, and a `pytest`
 * script of its own, so that python, python3 and pytest inside the sandbox can be told apart from the host's.
 */
const offlineSetup = [
  'python3 -m venv --system-site-packages "$SWITCH_SWE_ENV/venv"',
  `printf '#!%s\\nimport sys\\nfrom pytest import console_main\\nsys.exit(console_main())\\n' "$SWITCH_SWE_ENV/venv/bin/python" > "$SWITCH_SWE_ENV/venv/bin/pytest"`,
  'chmod +x "$SWITCH_SWE_ENV/venv/bin/pytest"',
];

/** The embedded sample copied (with `setup` for its repositories when given), and a sessions file of it. */
function sample(setup: string[] | null) {
  const root = tempDir("switch-swe-task-env-");
  const datasetDir = join(root, "sample");
  cpSync(join(packageRoot, "datasets", "sample"), datasetDir, { recursive: true });
  if (setup) {
    const file = join(datasetDir, "dataset.json");
    const manifest = JSON.parse(readFileSync(file, "utf8")) as { repos: Record<string, { environment: Record<string, unknown> }> };
    for (const repo of Object.values(manifest.repos)) repo.environment.setup = setup;
    writeFileSync(file, JSON.stringify(manifest, null, 2));
  }
  const env = { SWITCH_SWE_CACHE: join(root, "cache") };
  const sessionsPath = join(root, "sessions.json");
  const b = cli(["sessions", "build", datasetDir, "--seed", "0", "--out", sessionsPath], { env });
  expect(b.code, b.stderr).toBe(0);
  return { root, datasetDir, sessionsPath, env };
}

describe.skipIf(missingTool)("the task's environment inside the agent's sandbox", () => {
  it(
    "sample without set-up: the agent's test run inside the sandbox, on the host's python, matches the verifier test by test; run.json says host",
    { timeout: 300_000 },
    () => {
      const s = sample(null);
      const x = agentAgainstVerifier(s.root, s.datasetDir, s.sessionsPath, testCommand, s.env);
      expectSameOutcomes(x);
      expect(x.runJson.sandbox.task_environment?.source).toBe("host");
      expect(x.resolved).toMatch(/^RESOLVED .*prefix=\S+/);
      expect(x.resolved).not.toMatch(/\/envs\//);
      expect(x.envLine).toBeUndefined();
    },
  );

  it(
    "sample with a set-up: python, python3 and pytest inside resolve to the task's environment (read-only, its set-up checkout hidden), and the agent's run matches the verifier",
    { timeout: 300_000 },
    () => {
      const s = sample([...offlineSetup, 'touch "$SWITCH_SWE_ENV/checkout/only-in-the-setup-checkout"']);
      const x = agentAgainstVerifier(s.root, s.datasetDir, s.sessionsPath, testCommand, s.env);
      expectSameOutcomes(x);
      expect(x.runJson.sandbox.task_environment?.source).toBe("set-up");
      const m = /^RESOLVED python=(\S+) python3=(\S+) pytest=(\S+) prefix=(\S+)$/.exec(x.resolved);
      expect(m, x.resolved).not.toBeNull();
      const venv = m![4]!;
      expect(venv).toMatch(/\/envs\/[0-9a-f]{32}\/venv$/);
      expect([m![1], m![2], m![3]]).toEqual([`${venv}/bin/python`, `${venv}/bin/python3`, `${venv}/bin/pytest`]);
      expect(x.envLine).toBe("ENV checkout_entries=0 writable=no");
      // Built before the session, logged with the attempt; the same environment the verifier used (one set-up).
      expect(existsSync(join(x.out, "sessions", x.session, "attempts", "1", "environment.log"))).toBe(true);
    },
  );
});
