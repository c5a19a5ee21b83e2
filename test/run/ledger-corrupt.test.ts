import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { makeRunFixture, type RunFixture } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

let fx: RunFixture;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  fx = makeRunFixture(1);
  env = { SWITCH_SWE_CACHE: fx.cache };
});

describe.skipIf(missingTool)("a corrupted ledger.sqlite", { timeout: 600_000 }, () => {
  it("run --resume exits 2 with one line naming the file; report, which does not need the ledger, still works", () => {
    const pair = fx.sessions.pairs[0]!.id;
    const out = join(fx.root, "run");
    const first = cli(
      [
        "run",
        "--dataset",
        fx.datasetDir,
        "--sessions",
        fx.sessionsPath,
        "--agent",
        "oracle",
        "--session",
        `${pair}.base`,
        "--out",
        out,
        "--no-verify",
        "--quiet",
      ],
      { env },
    );
    expect(first.code).toBe(0);
    const ledger = join(out, "ledger.sqlite");
    const garbage = Buffer.alloc(16384, "not a database, just garbage. ");
    writeFileSync(ledger, garbage);
    const runJson = readFileSync(join(out, "run.json"), "utf8");

    const r = cli(["run", "--out", out, "--resume", "--no-verify", "--quiet"], { env });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^${ledger.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: the run's ledger is unreadable \\(file is not a database\\)`),
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // Nothing was changed: the ledger is still the garbage, run.json as it was, and no lock is left.
    expect(readFileSync(ledger).equals(garbage)).toBe(true);
    expect(readFileSync(join(out, "run.json"), "utf8")).toBe(runJson);

    const report = cli(["report", out, "--format", "json"], { env });
    expect(report.stderr).toBe("");
    expect(report.code).toBe(0);
  });
});
