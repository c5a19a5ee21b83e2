import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { makeRunFixture, type RunFixture } from "../run/fixture.js";

let fx: RunFixture;
beforeAll(() => {
  fx = makeRunFixture(1);
  // A set-up that fails: every verification is an infrastructure fault (not the agent's doing).
  const file = join(fx.datasetDir, "dataset.json");
  const manifest = JSON.parse(readFileSync(file, "utf8")) as { repos: Record<string, Record<string, unknown>> };
  manifest.repos.demo!.environment = { setup: ["echo broken set-up >&2; exit 3"] };
  writeFileSync(file, JSON.stringify(manifest, null, 2));
});
afterAll(() => rmSync(fx.root, { recursive: true, force: true }));

describe("run and verify share one exit-code rule for infrastructure faults", () => {
  it("run exits 1 and says so when its own verification left infrastructure faults; verify exits 1 on the same state", () => {
    const out = join(fx.root, "run");
    const session = `${fx.sessions.pairs[0]!.id}.base`;
    const env = { SWITCH_SWE_CACHE: fx.cache };
    const r = cli(["run", "--dataset", fx.datasetDir, "--sessions", fx.sessionsPath, "--agent", "oracle", "--session", session, "--out", out, "--quiet"], { env });
    expect(r.stderr).toContain(`1 verdict(s) are infrastructure faults (${session})`);
    expect(r.code).toBe(1);
    const v = cli(["verify", out], { env });
    expect(v.stdout).toMatch(/1 infrastructure fault\(s\)/);
    expect(v.code).toBe(1);
  });
});
