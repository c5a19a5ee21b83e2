import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../src/core/random.js";
import { candidatesByTask, pairLocality, type Footprint } from "../../src/sessions/locality.js";
import { baseSchedule, countFocusReturns, switchSchedule, type ScheduledTask } from "../../src/sessions/schedule.js";
import { workspaceNames } from "../../src/formats/sessions.js";

function fp(id: string, files: string[], repo = "r"): Footprint {
  return { id, repo, files: new Set(files), units: new Set(files.map((f) => (f.includes("/") ? f.slice(0, f.lastIndexOf("/")) : "."))) };
}

describe("locality", () => {
  it("classifies pairs by shared files and shared parent directories", () => {
    const a = fp("a", ["src/x/one.py", "src/y/two.py"]);
    expect(pairLocality(a, fp("b", ["src/x/three.py"]))).toBe("near");
    expect(pairLocality(a, fp("c", ["src/z/four.py"]))).toBe("far");
    expect(pairLocality(a, fp("d", ["src/y/two.py", "src/z/five.py"]))).toBeNull();
    expect(pairLocality(a, fp("e", ["src/x/three.py"], "other"))).toBeNull();
    // src/x and src/x/sub are different parents: only the immediate parent counts.
    expect(pairLocality(a, fp("f", ["src/x/sub/six.py"]))).toBe("far");
    expect(pairLocality(fp("g", ["top.py"]), fp("h", ["other.py"]))).toBe("near");
  });

  it("the indexed candidate lists agree with the pairwise definition", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 4 })), { minLength: 0, maxLength: 3 }), {
          minLength: 1,
          maxLength: 12,
        }),
        (specs) => {
          const fps = specs.map((files, i) =>
            fp(
              `t${String(i).padStart(2, "0")}`,
              files.map(([d, f]) => `d${d}/f${f}.py`),
            ),
          );
          const cands = candidatesByTask(fps);
          for (const f of fps) {
            const near = fps.filter((g) => pairLocality(f, g) === "near").map((g) => g.id);
            const far = fps.filter((g) => pairLocality(f, g) === "far").map((g) => g.id);
            expect(cands.get(f.id)!.near).toEqual(near);
            expect(cands.get(f.id)!.far).toEqual(far);
          }
        },
      ),
    );
  });
});

describe("schedules", () => {
  const task = (id: string, n: number, w: number): ScheduledTask => ({
    id,
    requests: Array.from({ length: n }, (_, k) => `${id} request ${k + 1}`),
    workspace: workspaceNames[w]!,
  });

  it("keep every task's order, put finalization last and project onto the base schedule", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 4, maxLength: 4 }),
        fc.nat(),
        (nf, ns, seed) => {
          const focus = task("f", nf, 0);
          const ints = ns.map((n, i) => task(`i${i}`, n, i + 1));
          const sw = switchSchedule(seededRandom(seed), focus, ints);
          expect(sw.filter((s) => s.task === "f")).toEqual(baseSchedule(focus));
          expect(sw.at(-1)!.kind).toBe("finalization");
          expect(sw.filter((s) => s.kind === "finalization")).toHaveLength(1);
          for (const t of ints) {
            const stages = sw.flatMap((s) => (s.task === t.id && s.kind === "stage" ? [s.stage] : []));
            expect(stages.length).toBeGreaterThanOrEqual(1);
            expect(stages).toEqual(stages.map((_, k) => k + 1));
            for (const s of sw) if (s.task === t.id) expect(s.workspace).toBe(t.workspace);
          }
          if (nf >= 3) expect(countFocusReturns(sw, "f")).toBeGreaterThanOrEqual(2);
          if (nf === 2) expect(countFocusReturns(sw, "f")).toBe(1);
        },
      ),
    );
  });
});
