import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "./helpers/cli.js";
import { tempDir } from "./helpers/synthetic-dataset.js";

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
    // Signatures: the oracle shows none; the forgetting oracle's losses are lost requirements by
    // construction, exactly the switched sessions in which it forgot (read from its trajectories).
    const full = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { configs: Array<{ signatures: Record<string, Record<string, { available: number; sessions: number | null }>>; failure_categories: { overall: Record<string, Record<string, number>> } }> };
    for (const [ci, cfg] of full.configs.entries()) {
      for (const cond of ["base", "switch"]) {
        for (const name of ["wrong_workspace_edits", "cross_task_contamination", "incomplete_execution", "submission"]) {
          expect(cfg.signatures[cond]![name], `${ci} ${cond} ${name}`).toMatchObject({ available: 18, sessions: 0 });
        }
      }
    }
    const forgetDir = join(out, "runs", "oracle-forget-0.5", "sessions");
    const forgot = readdirSync(forgetDir).filter((id) => readFileSync(join(forgetDir, id, "trajectory.jsonl"), "utf8").includes('"forgot_earlier_stages":true'));
    expect(forgot.every((id) => id.endsWith(".switch"))).toBe(true);
    expect(full.configs[1]!.signatures.switch!.lost_requirement).toMatchObject({ sessions: forgot.length });
    expect(full.configs[1]!.failure_categories.overall.switch).toMatchObject({ resolved: 18 - forgot.length, implementation: forgot.length, submission: 0, incomplete_execution: 0 });
    expect(full.configs[0]!.signatures.switch!.lost_requirement).toMatchObject({ sessions: 0 });
    for (const run of ["oracle", "oracle-forget-0.5"]) {
      expect(existsSync(join(out, "runs", run, "sessions", "textflow-slug-unicode.switch", "verdict.json"))).toBe(true);
    }
  }, 1_800_000);
});
