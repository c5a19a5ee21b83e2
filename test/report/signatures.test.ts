import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildReport } from "../../src/report/index.js";
import { signatureNames } from "../../src/report/report-schema.js";
import { referenceSpec, writeRunFixture } from "./fixtures.js";
import { scenarios, writeSignatureFixture } from "./signature-fixture.js";

const expectedSignature = {
  "wrong-workspace": "wrong_workspace_edits",
  contamination: "cross_task_contamination",
  "lost-requirement": "lost_requirement",
  reverted: "reverted_work",
  incomplete: "incomplete_execution",
  submission: "submission",
} as const;

describe("trajectory signatures and failure categories", () => {
  it("counts each signature exactly once on a hand-built run where it is present once", async () => {
    const fx = writeSignatureFixture(mkdtempSync(join(tmpdir(), "sig-")));
    const report = await buildReport([fx.runDir], { resamples: 200 });
    const c = report.configs[0]!;
    for (const name of signatureNames) {
      expect(c.signatures.switch[name], name).toEqual({ available: 7, sessions: 1, count: 1 });
      expect(c.signatures.base[name], name).toEqual({ available: 7, sessions: 0, count: 0 });
    }
    scenarios.forEach((sc, i) => {
      const s = c.sessions.find((x) => x.id === `f${i}.switch`)!;
      const present = signatureNames.filter(
        (n) => s.signatures[n] === true || (typeof s.signatures[n] === "number" && (s.signatures[n] as number) > 0),
      );
      expect(present, sc).toEqual(sc === "clean" ? [] : [expectedSignature[sc]]);
    });
    const category = (i: number) => c.sessions.find((x) => x.id === `f${i}.switch`)!.failure_category;
    expect(scenarios.map((_, i) => category(i))).toEqual([
      null,
      "implementation",
      "implementation",
      "implementation",
      "implementation",
      "incomplete_execution",
      "submission",
    ]);
    expect(c.failure_categories.overall.switch).toEqual({
      sessions: 7,
      resolved: 1,
      implementation: 4,
      submission: 1,
      incomplete_execution: 1,
      not_scored: 0,
    });
    expect(c.failure_categories.overall.base).toEqual({
      sessions: 7,
      resolved: 7,
      implementation: 0,
      submission: 0,
      incomplete_execution: 0,
      not_scored: 0,
    });
    // near = even pairs (clean, contamination, reverted, submission), far = odd.
    expect(c.failure_categories.near.switch).toMatchObject({ resolved: 1, implementation: 2, submission: 1 });
    expect(c.failure_categories.far.switch).toMatchObject({ implementation: 2, incomplete_execution: 1 });
  });

  it("places each signature on the request where it happened (the session viewer's marks)", async () => {
    const fx = writeSignatureFixture(mkdtempSync(join(tmpdir(), "sig-marks-")));
    const c = (await buildReport([fx.runDir], { resamples: 100 })).configs[0]!;
    const marks = (i: number) =>
      c.sessions
        .find((x) => x.id === `f${i}.switch`)!
        .signature_marks.map((m) => ({ signature: m.signature, request: m.request, workspace: m.workspace, paths: m.paths }));
    // Switched schedule: F1 I1 F2 I2 F3 I3 I4 FIN (indices 0..7); the focus checkout is w00.
    expect(marks(0)).toEqual([]);
    expect(marks(1)).toEqual([{ signature: "wrong_workspace_edits", request: 2, workspace: "w01", paths: ["src/other.py"] }]);
    // The contaminated line is in src/f2.py, which the focus checkout last changed at F3.
    expect(marks(2)).toEqual([{ signature: "cross_task_contamination", request: 4, workspace: "w00", paths: ["src/f2.py"] }]);
    expect(c.sessions.find((x) => x.id === "f2.switch")!.signature_marks[0]!.detail).toContain("i2-1");
    expect(marks(3)).toEqual([{ signature: "lost_requirement", request: 0, workspace: "w00", paths: [] }]);
    expect(marks(4)).toEqual([{ signature: "reverted_work", request: 4, workspace: "w00", paths: ["src/f4.py"] }]);
    expect(c.sessions.find((x) => x.id === "f4.switch")!.signature_marks[0]!.detail).toContain("before request #1");
    for (const i of [5, 6]) expect(marks(i)).toEqual([]);
    for (const s of c.sessions.filter((x) => x.condition === "base")) expect(s.signature_marks).toEqual([]);
  });

  it("marks evidence-based signatures unavailable, not zero, for a run recorded without evidence", async () => {
    const fx = writeRunFixture(mkdtempSync(join(tmpdir(), "sig-old-")), referenceSpec());
    const report = await buildReport([fx.runDir], { resamples: 200 });
    const c = report.configs[0]!;
    for (const name of ["wrong_workspace_edits", "reverted_work", "submission", "cross_task_contamination"] as const) {
      expect(c.signatures.switch[name], name).toEqual({ available: 0, sessions: null, count: null });
    }
    // Stage-based signatures are still there: 7 applied verdicts; failures at stages [1], [1,3], [3], [2]:
    // all but [3] have a later stage passing (the stage attribution's earlier-stage failures).
    expect(c.signatures.switch.lost_requirement).toEqual({ available: 7, sessions: 3, count: 3 });
    expect(c.stage_attribution.groups.overall.switch.earlier_stage_failure).toBe(3);
    // The killed session is incomplete; the others ran to the end.
    expect(c.signatures.switch.incomplete_execution).toMatchObject({ sessions: 1 });
    expect(c.failure_categories.overall.switch).toEqual({
      sessions: 10,
      resolved: 3,
      implementation: 4,
      submission: 1,
      incomplete_execution: 1,
      not_scored: 1,
    });
  });
});
