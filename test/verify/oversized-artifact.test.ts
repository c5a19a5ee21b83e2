import { closeSync, ftruncateSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verdictSchema } from "../../src/formats/verdict.js";
import { cli } from "../helpers/cli.js";
import { tempDir, writeCalcDataset, writeRunDir } from "./fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const cache = tempDir("switch-swe-cache-");
let root: string;
let runDir: string;

/** A valid patch that adds one text file of about `mb` megabytes. */
function bigPatch(mb: number): string {
  const line = `+${"x".repeat(63)}\n`;
  const n = Math.ceil((mb * 1024 * 1024) / line.length);
  return `diff --git a/calc/big.txt b/calc/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/calc/big.txt\n@@ -0,0 +1,${n} @@\n${line.repeat(n)}`;
}

beforeAll(() => {
  root = writeCalcDataset(tempDir(), { tasks: [{ id: "fix-add" }] });
  runDir = tempDir("switch-swe-run-");
  const reference = readFileSync(join(root, "tasks", "fix-add", "stage-1.patch"), "utf8");
  writeRunDir(runDir, root, { "fix-add.base": reference, "fix-add.switch": bigPatch(1.5) });
});
afterAll(() => {
  for (const d of [cache, root, runDir]) rmSync(d, { recursive: true, force: true });
});

const verdictOf = (s: string) => verdictSchema.parse(JSON.parse(readFileSync(join(runDir, "sessions", s, "verdict.json"), "utf8")));
const env = { SWITCH_SWE_CACHE: cache };

describe.skipIf(missingTool)("an artifact over --max-artifact-mb", { timeout: 600_000 }, () => {
  it("is that session's `not applied` with the reason; the others are verified; a higher limit verifies it", () => {
    const r = cli(["verify", runDir, "--max-artifact-mb", "1"], { env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const big = verdictOf("fix-add.switch");
    expect(big).toMatchObject({ applied: false, resolved: false, infra_fault: false, apply_method: null });
    expect(big.apply_error).toBe("the artifact is 1.5 MB, over the limit of 1.0 MB (--max-artifact-mb); it was not read");
    expect(Object.values(big.tests).every((s) => s === "missing")).toBe(true);
    expect(readFileSync(join(runDir, "sessions", "fix-add.switch", "verify.log"), "utf8")).toContain("not applied: the artifact is 1.5 MB");
    expect(r.stdout).toMatch(/fix-add\.switch\s+unresolved .*not applied: the artifact is 1\.5 MB/);
    expect(verdictOf("fix-add.base").resolved).toBe(true);

    // The refusal is not kept once the limit allows the artifact: it is verified (it applies; add() stays wrong).
    const again = cli(["verify", runDir, "--max-artifact-mb", "2"], { env });
    expect(again.code).toBe(0);
    expect(verdictOf("fix-add.switch")).toMatchObject({ applied: true, apply_method: "git-apply", resolved: false });
    expect(again.stdout).toMatch(/fix-add\.base\s+resolved .*kept/);
  });

  it("one larger than a JavaScript string can hold (600 MB) is refused under the default limit, without reading it", () => {
    const file = join(runDir, "sessions", "fix-add.switch", "artifact.patch");
    // A sparse file: 600 MB long, no disk used.
    writeFileSync(file, "");
    const fd = openSync(file, "r+");
    ftruncateSync(fd, 600 * 1024 * 1024);
    closeSync(fd);
    const r = cli(["verify", runDir], { env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(verdictOf("fix-add.switch").apply_error).toBe(
      "the artifact is 600.0 MB, over the limit of 256.0 MB (--max-artifact-mb); it was not read",
    );
    expect(verdictOf("fix-add.base").resolved).toBe(true);
    rmSync(file);
  });
});
