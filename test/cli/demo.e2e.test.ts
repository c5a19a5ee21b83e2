import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/synthetic-dataset.js";

interface Group {
  n: number;
  uninterrupted: number;
  switched: number;
  gap: number;
  ci95: [number, number];
}

// The README's first command, end to end on the embedded sample: every stage of the pipeline runs for real.
describe("switch-swe demo", () => {
  it("validates, builds, runs the oracle and a forgetting oracle, verifies, and reports a known gap", () => {
    const out = join(tempDir(), "demo");
    const r = cli(["demo", "--out", out, "--concurrency", "2"], { env: { SWITCH_SWE_CACHE: join(tempDir(), "cache") } });
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stdout).toContain("18 tasks, valid");
    expect(r.stdout).toContain("Resolution");
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { configs: Array<{ label: string; groups: Record<string, Group> }> };
    const [oracle, forget] = report.configs;
    expect(oracle!.label).toBe("oracle");
    // The reference solution resolves every task in both conditions: the harness adds no gap of its own.
    expect(oracle!.groups.overall).toMatchObject({ n: 18, uninterrupted: 100, switched: 100, gap: 0 });
    // Forgetting only on returns: uninterrupted sessions are unaffected, switched ones lose.
    expect(forget!.groups.overall!.uninterrupted).toBe(100);
    expect(forget!.groups.overall!.gap).toBeGreaterThan(30);
    expect(forget!.groups.overall!.ci95[0]).toBeGreaterThan(0);
    expect(existsSync(join(out, "report.html"))).toBe(true);
    for (const run of ["oracle", "oracle-forget-0.5"]) {
      expect(existsSync(join(out, "runs", run, "sessions", "textflow-slug-unicode.switch", "verdict.json"))).toBe(true);
    }
  }, 1_800_000);
});
