import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runFiles } from "../../src/formats/run-layout.js";
import { sessionId } from "../../src/formats/sessions.js";
import { buildReport } from "../../src/report/index.js";
import { runSessions } from "../../src/run/runner.js";
import { makeRunFixture } from "../run/fixture.js";

// A real run and verification of the forgetting oracle: it loses exactly the sessions where it forgot (the
// earlier stage's test fails), scored as implementation failures with reverted work, and it never edits the
// wrong checkout, copies between checkouts, or leaves work incomplete. The synthetic tasks test stage 1 only,
// so stage 1 is their last tested stage and the lost-requirement signature (an earlier stage than the last
// tested one) is checked, false, in every session; the hand-built run of signatures.test.ts covers it.
describe("signatures of the forgetting oracle", () => {
  it("counts lost requirements exactly in the switched sessions where it forgot, and nothing else", async () => {
    const fx = makeRunFixture(2);
    const out = join(fx.root, "run-forget");
    await runSessions({ out, resume: false, dataset: fx.datasetDir, sessions: fx.sessionsPath, agent: "oracle", agentOptions: { forget: "1" }, concurrency: 2, keepWorkspaces: false, verify: true, progress: () => undefined });
    const forgot = fx.sessions.pairs
      .map((p) => sessionId(p.id, "switch"))
      .filter((id) => readFileSync(runFiles.trajectory(out, id), "utf8").includes('"forgot_earlier_stages":true'));
    expect(forgot.length).toBeGreaterThan(0);
    const report = await buildReport([out], { resamples: 200 });
    const c = report.configs[0]!;
    const failed = c.sessions.filter((s) => s.status === "unresolved");
    expect(failed.map((s) => s.id).sort()).toEqual([...forgot].sort());
    for (const s of failed) expect(s).toMatchObject({ reason: "tests failed", failed_stages: [1], failure_category: "implementation" });
    expect(c.sessions.every((s) => s.signatures.lost_requirement === false)).toBe(true);
    for (const cond of ["base", "switch"] as const) {
      for (const name of ["wrong_workspace_edits", "cross_task_contamination", "incomplete_execution", "submission"] as const) {
        expect(c.signatures[cond][name], `${cond} ${name}`).toEqual({ available: 2, sessions: 0, count: 0 });
      }
    }
    expect(c.signatures.base.reverted_work.sessions).toBe(0);
    expect(c.signatures.switch.reverted_work.sessions).toBeGreaterThan(0);
    expect(c.failure_categories.overall.switch).toMatchObject({ implementation: forgot.length, submission: 0, incomplete_execution: 0 });
  }, 1_200_000);
});
