import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { pathWithout, skipWithout } from "../helpers/tools.js";
import { makeRunFixture } from "./fixture.js";

// Needs bwrap (the refused resume asks for it): skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

interface Verdicts {
  verdicts: Record<string, { resolved: boolean; infra_fault: boolean }>;
}

/** An oracle run of one pair, not verified, with `extra` options. */
function startedRun(extra: string[]) {
  const fx = makeRunFixture(1);
  const out = join(fx.root, "run");
  const env = { SWITCH_SWE_CACHE: fx.cache };
  const first = cli(
    [
      "run",
      "--dataset",
      fx.datasetDir,
      "--sessions",
      fx.sessionsPath,
      "--agent",
      "oracle",
      ...extra,
      "--no-verify",
      "--quiet",
      "--out",
      out,
    ],
    { env },
  );
  expect(first.code, first.stderr).toBe(0);
  return { fx, out, env };
}

// A resumed run is confined as run.json says it ran: another setting is refused, and a `--sandbox none`
// run resumed (or verified) without the flag is verified unconfined, even where bubblewrap is missing.
describe.skipIf(missingTool)("a run's confinement on --resume and verify", () => {
  it("--resume with another --sandbox or --network is refused naming both values; without them it verifies as it ran", () => {
    const { fx, out, env } = startedRun(["--sandbox", "none"]);

    const other = cli(["run", "--out", out, "--resume", "--sandbox", "bwrap", "--quiet"], { env });
    expect(other.code).toBe(2);
    expect(other.stderr.trim().split("\n")).toEqual([
      `${join(out, "run.json")}: sandbox.mode: the run was started with "none", --sandbox now gives "bwrap": resume with the same options or use a new --out`,
    ]);

    // Resumed without the flag on a machine without bubblewrap: verified unconfined, as it ran.
    const PATH = pathWithout(["bwrap"], tempDir("switch-swe-resume-path-"));
    const resumed = cli(["run", "--out", out, "--resume", "--quiet"], { env: { ...env, PATH } });
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = readFileSync(join(out, "sessions", fx.sessions.pairs[0]!.id + ".switch", "verdict.json"), "utf8");
    expect(JSON.parse(summary)).toMatchObject({ resolved: true, infra_fault: false });

    const again = cli(["verify", out, "--force", "--json"], { env: { ...env, PATH } });
    expect(again.code, again.stderr).toBe(0);
    const v = JSON.parse(again.stdout) as Verdicts;
    expect(Object.values(v.verdicts).every((x) => x.resolved && x.infra_fault === false)).toBe(true);
  });

  it("--resume of a confined run with another --network is refused", () => {
    const { out, env } = startedRun(["--condition", "base"]);
    const network = cli(["run", "--out", out, "--resume", "--network", "none", "--quiet"], { env });
    expect(network.code).toBe(2);
    expect(network.stderr.trim()).toBe(
      `${join(out, "run.json")}: sandbox.network: the run was started with "model", --network now gives "none": resume with the same options or use a new --out`,
    );
  });
});
