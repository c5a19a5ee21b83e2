import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sampleDatasetDir } from "../../src/core/package-paths.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/synthetic-dataset.js";
import { makeRunFixture } from "../run/fixture.js";

interface Report {
  routing_accuracy: number;
  context_ratio: number;
  invariant_violations: number;
  sessions: number;
  resumed_focus_steps: number;
  abstained: number;
}

function evalJson(runDir: string, ...extra: string[]): Report {
  const r = cli(["rcm", "eval", runDir, "--format", "json", ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Report;
}

describe("switch-swe rcm eval", () => {
  it("replays oracle switched sessions: exact routing, smaller context, no invariant violation", () => {
    const fx = makeRunFixture(2);
    const out = join(fx.root, "run");
    const run = cli(["run", "--dataset", fx.datasetDir, "--sessions", fx.sessionsPath, "--agent", "oracle", "--out", out, "--quiet", "--no-verify"], { env: { SWITCH_SWE_CACHE: fx.cache } });
    expect(run.code, run.stderr).toBe(0);
    for (const mode of ["router", "rcm"]) {
      const r = evalJson(out, "--mode", mode);
      expect(r).toMatchObject({ sessions: 2, routing_accuracy: 1, invariant_violations: 0, abstained: 0 });
      expect(r.resumed_focus_steps).toBeGreaterThan(0);
      expect(r.context_ratio).toBeGreaterThan(0);
      expect(r.context_ratio).toBeLessThan(1);
    }
    const text = cli(["rcm", "eval", out]);
    expect(text.stdout).toMatch(/routing accuracy\s+100\.0%/);
    expect(text.stdout).toMatch(/invariant violations\s+0/);
  });

  it("reports bad input as one line and exit 2", () => {
    const r = cli(["rcm", "eval", join(tempDir(), "nope")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a run directory/);
    expect(cli(["rcm", "eval", tempDir(), "--mode", "magic"]).code).toBe(2);
  });

  // The targets, on the sample dataset's switched sessions run with the oracle agent.
  it(
    "meets the targets on the sample switched sessions (oracle)",
    () => {
      const root = tempDir("switch-swe-rcm-sample-");
      const sessions = join(root, "sessions.json");
      expect(cli(["sessions", "build", sampleDatasetDir, "--seed", "0", "--out", sessions]).code).toBe(0);
      const out = join(root, "run");
      const run = cli(["run", "--dataset", sampleDatasetDir, "--sessions", sessions, "--agent", "oracle", "--condition", "switch", "--concurrency", "2", "--out", out, "--quiet", "--no-verify"], { env: { SWITCH_SWE_CACHE: join(root, "cache") } });
      expect(run.code, run.stderr).toBe(0);
      const rcm = evalJson(out, "--mode", "rcm");
      expect(rcm.sessions).toBe(18);
      expect(rcm.routing_accuracy).toBeGreaterThanOrEqual(0.98);
      expect(rcm.context_ratio).toBeLessThanOrEqual(0.4);
      expect(rcm.invariant_violations).toBe(0);
      const router = evalJson(out, "--mode", "router");
      expect(router.routing_accuracy).toBeGreaterThanOrEqual(0.98);
      expect(router.invariant_violations).toBe(0);
      // Without the Workspace: lines the router is unsure more often; it must then keep the history, not lose requests.
      const blind = evalJson(out, "--mode", "rcm", "--hide-workspace");
      expect(blind.invariant_violations).toBeLessThanOrEqual(2);
    },
    300_000,
  );
});
