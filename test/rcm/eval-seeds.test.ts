import { describe, expect, it } from "vitest";
import { sampleDatasetDir } from "../../src/core/package-paths.js";
import { loadDataset } from "../../src/dataset/load.js";
import { evaluateSessions } from "../../src/rcm/eval/evaluate.js";
import { buildCheckedSessions } from "../../src/sessions/checked-build.js";
import { oracleReplaySessions } from "./helpers/oracle-sessions.js";

/**
 * The hint-free router's targets must hold for the sample's sessions whatever the seed that drew them
 * (docs/rcm.md, "switch-swe rcm eval"): the oracle sessions of several seeds, replayed without the
 * `Workspace:` lines. Seeds 1, 2 and 5 gave 1.16x, 1.22x and 1.31x the uninterrupted context before the
 * router read module names in symbols (`render_diff` of diff.py), weighed a one-word likeness of names
 * half, and stopped guessing a task for an undecided request.
 */
describe("rcm eval on the sample, several seeds, Workspace: lines hidden", () => {
  const dataset = loadDataset(sampleDatasetDir);
  it.each([1, 2, 5, 7])(
    "seed %i: routing >= 0.95, <= 1.1x the uninterrupted context, no violation",
    (seed) => {
      const { switched, base } = oracleReplaySessions(dataset, buildCheckedSessions(dataset, { seed }));
      const report = evaluateSessions(switched, base, { mode: "rcm", workspaceLines: ["hidden"] });
      const v = report.variants[0]!;
      expect(report.sessions).toBe(18);
      expect(v.uninterrupted_steps).toBe(report.resumed_focus_steps);
      expect(v.routing_accuracy).toBeGreaterThanOrEqual(0.95);
      expect(v.uninterrupted_ratio).toBeLessThanOrEqual(1.1);
      expect(v.invariant_violations).toBe(0);
    },
    60_000,
  );
});
