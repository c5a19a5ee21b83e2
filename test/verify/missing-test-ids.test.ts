import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { verdictSchema } from "../../src/formats/verdict.js";
import { cli } from "../helpers/cli.js";
import { calcF2P, calcP2P, tempDir, writeCalcDataset, writeRunDir } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const cache = tempDir("switch-swe-cache-");
const scratch = tempDir();
const env = { SWITCH_SWE_CACHE: cache };
afterAll(() => {
  rmSync(cache, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(missingTool)("a required test id that no longer exists", () => {
  it("is that test's `missing` status, the others are run and reported, and it is no infrastructure fault", () => {
    const gone = ["tests/test_ops.py::test_renamed_away", "tests/test_ops.py::test_add_many[9-9]", "tests/test_gone.py::test_x"];
    const root = writeCalcDataset(join(scratch, "ds"), { tasks: [{ id: "fix-add", f2p: [...calcF2P, ...gone], p2p: calcP2P }] });
    const runDir = join(scratch, "run");
    const reference = readFileSync(join(root, "tasks", "fix-add", "stage-1.patch"), "utf8");
    writeRunDir(runDir, root, { "fix-add.base": reference });
    const r = cli(["verify", runDir], { env });
    const v = verdictSchema.parse(JSON.parse(readFileSync(join(runDir, "sessions", "fix-add.base", "verdict.json"), "utf8")));
    expect(v.infra_fault).toBe(false);
    expect(v.attempts).toBe(1);
    for (const id of gone) expect(v.tests[id]).toBe("missing");
    for (const id of [...calcF2P, ...calcP2P]) expect(v.tests[id]).toBe("passed");
    expect(v.resolved).toBe(false);
    expect(r.stdout).toMatch(/fix-add\.base\s+unresolved\s+F2P 4\/7\s+P2P 1\/1/);
    expect(r.code).toBe(0);
    const line = /^not found \(missing\): (.*)$/m.exec(readFileSync(join(runDir, "sessions", "fix-add.base", "verify.log"), "utf8"));
    expect(line?.[1]?.split(" ").sort()).toEqual([...gone].sort());
  });

  it("when every required id is gone, nothing is run and every test is missing", () => {
    const root = writeCalcDataset(join(scratch, "ds-all"), {
      tasks: [{ id: "fix-add", f2p: ["tests/test_ops.py::test_nothing_here"], p2p: [] }],
    });
    const runDir = join(scratch, "run-all");
    writeRunDir(runDir, root, { "fix-add.base": readFileSync(join(root, "tasks", "fix-add", "stage-1.patch"), "utf8") });
    const r = cli(["verify", runDir], { env });
    const v = verdictSchema.parse(JSON.parse(readFileSync(join(runDir, "sessions", "fix-add.base", "verdict.json"), "utf8")));
    expect(v.infra_fault).toBe(false);
    expect(v.tests).toEqual({ "tests/test_ops.py::test_nothing_here": "missing" });
    expect(r.code).toBe(0);
  });
});
