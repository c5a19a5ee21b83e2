import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { skipWithout } from "../helpers/tools.js";
import { calcF2P, tempDir, writeCalcDataset } from "../verify/fixture.js";

// `tasks qualify` runs the suite in the test-run sandbox: skipped with the reason where bwrap is missing.
const missingTool = skipWithout(import.meta.url, "bwrap");
const scratch = tempDir();
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const neg = "tests/test_ops.py::TestAdd::test_neg";
const mul = "tests/test_ops.py::test_mul";

describe.skipIf(missingTool)("tasks qualify: declared lists checked at the base", () => {
  it(
    "exits 1 naming a declared P2P that fails at the base and a declared F2P that passes there; a right task qualifies",
    { timeout: 300_000 },
    () => {
      const root = writeCalcDataset(join(scratch, "ds"), {
        tasks: [
          { id: "p2p-fails", f2p: calcF2P.filter((id) => id !== neg), p2p: [mul, neg] },
          { id: "f2p-passes", f2p: [...calcF2P, mul], p2p: [] },
          { id: "right" },
        ],
      });
      const env = { SWITCH_SWE_CACHE: join(scratch, "cache") };
      const r = cli(["tasks", "qualify", root, "--runs", "1", "--concurrency", "1"], { env });
      expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^p2p-fails +NOT QUALIFIED/m);
      expect(r.stdout).toContain(`  problem: declared P2P ${neg} fails without the reference (it is F2P)`);
      expect(r.stdout).toMatch(/^f2p-passes +NOT QUALIFIED/m);
      expect(r.stdout).toContain(`  problem: declared F2P ${mul} already passes without the reference (it is P2P)`);
      expect(r.stdout).toMatch(/^right +qualified/m);
      expect(r.stdout).toContain("1 of 3 task(s) qualify");
    },
  );
});
