import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { layoutTen, writeSyntheticDataset } from "../helpers/synthetic-dataset.js";
import { makeRunFixture, type RunFixture } from "../run/fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

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

describe.skipIf(missingTool)("run and verify share one exit-code rule for infrastructure faults", () => {
  it("run exits 1 and says so when its own verification left infrastructure faults; verify exits 1 on the same state", () => {
    const out = join(fx.root, "run");
    const session = `${fx.sessions.pairs[0]!.id}.base`;
    const env = { SWITCH_SWE_CACHE: fx.cache };
    const r = cli(
      [
        "run",
        "--dataset",
        fx.datasetDir,
        "--sessions",
        fx.sessionsPath,
        "--agent",
        "oracle",
        "--session",
        session,
        "--out",
        out,
        "--quiet",
      ],
      { env },
    );
    expect(r.stderr).toContain(`1 verdict(s) are infrastructure faults (${session})`);
    expect(r.code).toBe(1);
    const v = cli(["verify", out], { env });
    expect(v.stdout).toMatch(/1 infrastructure fault\(s\)/);
    expect(v.code).toBe(1);
  });
});

describe.skipIf(missingTool)("demo --dataset", () => {
  it("runs on the given dataset, and refuses one from which no session pair can be built (exit 2, one line per excluded focus task)", () => {
    const small = writeSyntheticDataset(join(fx.root, "small"), layoutTen.files, layoutTen.tasks.slice(0, 2));
    const r = cli(["demo", "--dataset", small, "--out", join(fx.root, "demo")], { env: { SWITCH_SWE_CACHE: fx.cache } });
    expect(r.stdout).toBe("dataset synthetic@1: 2 tasks, valid\n");
    const lines = r.stderr.trim().split("\n");
    expect(lines[0]).toBe(
      `${small}: no session pair can be built (2 focus task(s) excluded): a focus task needs 4 interruptions of its repository that share no source file with it, all near or all far`,
    );
    // One line per excluded focus task, naming it and what it lacks: t01 and t02 lie in one directory, in other files.
    expect(lines.slice(1)).toEqual(
      ["t01", "t02"].map((id) =>
        expect.stringMatching(
          new RegExp(
            `^${small}: tasks\\.${id}: no locality has 4 eligible interruptions in repository [\\w.-]+: 1 near, 0 far, 0 share a source file with it$`,
          ),
        ),
      ),
    );
    expect(r.code).toBe(2);
  });
});
