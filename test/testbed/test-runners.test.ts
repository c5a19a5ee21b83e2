import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runDoctorChecks } from "../../src/doctor/probes.js";
import { verdictSchema } from "../../src/formats/verdict.js";
import { registerTestRunner, testRunnerNames } from "../../src/testbed/test-runners.js";
import { verifyRun } from "../../src/verify/run-verify.js";
import { skipWithout } from "../helpers/tools.js";
import { fixedOps, tempDir, writeFiles, writeRunDir } from "../verify/fixture.js";
import { unittestArtifact, writeUnittestDataset } from "../verify/unittest-fixture.js";
import { fakeRunner } from "./fixtures/fake-runner.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const cache = tempDir("switch-swe-cache-");
beforeAll(() => {
  process.env.SWITCH_SWE_CACHE = cache;
});
afterAll(() => rmSync(cache, { recursive: true, force: true }));

describe.skipIf(missingTool)("test runners: one file and one registry line each", () => {
  it("a fake runner registered at run time runs a verified session: its launcher, configuration and channel are the ones used", async () => {
    registerTestRunner(fakeRunner("fake-unit", tempDir()));
    expect(testRunnerNames()).toEqual(["pytest", "unittest", "fake-unit"]);
    expect(() => registerTestRunner(fakeRunner("pytest", tempDir()))).toThrow(/registered already/);

    const root = writeUnittestDataset(tempDir(), "fake-unit-test {tests}", "fake-unit");
    writeFiles(join(root, "repos", "calcu"), { "fake-unit.cfg": "" });
    const runDir = tempDir("switch-swe-run-");
    const reference = readFileSync(join(root, "tasks", "fix-add", "stage-1.patch"), "utf8");
    // The switched session's artifact fixes add() and also edits the runner's own configuration.
    const withConfig = unittestArtifact((d) => writeFiles(d, { "calc/ops.py": fixedOps, "fake-unit.cfg": "pass = everything\n" }));
    writeRunDir(runDir, root, { "fix-add.base": reference, "fix-add.switch": withConfig });
    const r = await verifyRun(runDir, { sessions: ["fix-add.base", "fix-add.switch"] });
    expect(r.verified).toEqual(["fix-add.base", "fix-add.switch"]);

    const verdict = (s: string) => verdictSchema.parse(JSON.parse(readFileSync(join(runDir, "sessions", s, "verdict.json"), "utf8")));
    const log = readFileSync(join(runDir, "sessions", "fix-add.base", "verify.log"), "utf8");
    expect(log).toMatch(/^fake-unit configuration fixed to .*\/fake-unit\.cfg$/m);
    expect(log).toContain("fake-unit launcher ran");
    expect(log).toMatch(/^\$ python3 -I \S+\/fake-unit-launcher\.py 3 /m);
    expect(verdict("fix-add.base").resolved).toBe(true);
    expect(verdict("fix-add.base").canaries?.trusted).toBe(true);
    const sw = verdict("fix-add.switch");
    expect(sw.dropped_files).toEqual(["fake-unit.cfg"]);
    expect(sw.notes?.join("\n")).toContain("fake-unit.cfg: configures fake-unit");
    expect(sw.resolved).toBe(true);

    const [check] = await runDoctorChecks(["fake-unit"]);
    expect(check).toMatchObject({ id: "fake-unit", ok: true, enables: "the tests of repositories whose test runner is fake-unit" });
  }, 600_000);

  it("a repository that names no registered runner is a fault of the dataset, naming the runners there are", async () => {
    const root = writeUnittestDataset(tempDir(), "python3 -m unittest {tests}", "nosuch");
    const runDir = tempDir("switch-swe-run-");
    writeRunDir(runDir, root, { "fix-add.base": readFileSync(join(root, "tasks", "fix-add", "stage-1.patch"), "utf8") });
    await verifyRun(runDir, { maxInfraRetries: 0 });
    const v = verdictSchema.parse(JSON.parse(readFileSync(join(runDir, "sessions", "fix-add.base", "verdict.json"), "utf8")));
    expect(v.infra_fault).toBe(true);
    expect(v.infra_reason).toMatch(/repository calcu names test runner "nosuch", which is none of: pytest, unittest/);
  }, 300_000);
});
