import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { layoutTen, tempDir, writeSyntheticDataset } from "../helpers/synthetic-dataset.js";

const root = tempDir();
const env = { SWITCH_SWE_CACHE: join(root, "cache") };
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("focus tasks with fewer than two substantive stages", () => {
  it("sessions build and sessions stats warn: switched sessions cannot have a focus return", () => {
    const single = layoutTen.tasks.map((t) => ({ ...t, stages: 1 }));
    const ds = writeSyntheticDataset(join(root, "single"), layoutTen.files, single);
    const out = join(root, "single.json");
    const b = cli(["sessions", "build", ds, "--seed", "1", "--out", out], { env });
    expect(b.code).toBe(0);
    expect(b.stderr).toMatch(/^warning: \d+ of \d+ focus task\(s\) have fewer than two substantive stages \(t\d\d/);
    const s = cli(["sessions", "stats", out], { env });
    expect(s.code).toBe(0);
    expect(s.stderr).toContain("have fewer than two substantive stages");
    expect(s.stderr).toContain("no resumption gap can show");
  });

  it("no warning when every focus task has several stages", () => {
    const multi = layoutTen.tasks.map((t) => ({ ...t, stages: Math.max(2, t.stages) }));
    const ds = writeSyntheticDataset(join(root, "multi"), layoutTen.files, multi);
    const out = join(root, "multi.json");
    const b = cli(["sessions", "build", ds, "--seed", "1", "--out", out], { env });
    expect(b.code).toBe(0);
    expect(b.stderr).toBe("");
    // Ten tasks make few pairs: the only warning left is the power one (test/cli/sessions-power.test.ts).
    expect(cli(["sessions", "stats", out], { env }).stderr).not.toContain("fewer than two substantive stages");
  });
});
