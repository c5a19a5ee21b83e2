import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../../src/core/random.js";
import { switchRuleViolations } from "../../src/sessions/check.js";
import { baseSchedule, constructedSwitch, countFocusReturns, switchSchedule, type ScheduledTask } from "../../src/sessions/schedule.js";
import { workspaceNames, type ScheduleStep } from "../../src/formats/sessions.js";

const task = (id: string, n: number, w: number): ScheduledTask => ({
  id,
  requests: Array.from({ length: n }, (_, k) => `${id} request ${k + 1}`),
  workspace: workspaceNames[w]!,
});

/** Random task shapes: a focus of 1..10 stages and four interruptions of 1..6 stages each. */
const shapes = fc.tuple(
  fc.integer({ min: 1, max: 10 }),
  fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 4, maxLength: 4 }),
  fc.nat(),
);

function rulesOf(steps: readonly ScheduleStep[], focus: ScheduledTask, ints: readonly ScheduledTask[]) {
  const stages = new Map([focus, ...ints].map((t) => [t.id, t.requests.length]));
  return switchRuleViolations(
    steps,
    focus.id,
    ints.map((t) => t.id),
    (id) => stages.get(id),
  );
}

/** The properties every switched schedule has besides the two rules. */
function expectWellFormed(sw: readonly ScheduleStep[], focus: ScheduledTask, ints: readonly ScheduledTask[]): void {
  expect(sw.filter((s) => s.task === focus.id)).toEqual(baseSchedule(focus));
  expect(sw.at(-1)!.kind).toBe("finalization");
  for (const t of ints) {
    const stages = sw.flatMap((s) => (s.task === t.id && s.kind === "stage" ? [s.stage] : []));
    expect(stages.length).toBeGreaterThanOrEqual(Math.min(2, t.requests.length));
    expect(stages).toEqual(stages.map((_, k) => k + 1));
  }
}

describe("schedule rules (C.5)", () => {
  it("every built switched schedule meets both rules, over random task shapes and seeds", () => {
    fc.assert(
      fc.property(shapes, ([nf, ns, seed]) => {
        const focus = task("f", nf, 0);
        const ints = ns.map((n, i) => task(`i${i}`, n, i + 1));
        const sw = switchSchedule(seededRandom(seed), focus, ints);
        expectWellFormed(sw, focus, ints);
        expect(rulesOf(sw, focus, ints)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it("the constructed schedule (taken when no random draft meets the rules) meets them for every shape", () => {
    // Exhaustive over small shapes, where the one-gap and one-request corner cases live, then random larger ones.
    const sizes = [1, 2, 3];
    for (let nf = 1; nf <= 4; nf++) {
      for (const ns of sizes.flatMap((a) => sizes.flatMap((b) => sizes.flatMap((c) => sizes.map((d) => [a, b, c, d]))))) {
        for (let seed = 0; seed < 8; seed++) {
          const focus = task("f", nf, 0);
          const ints = ns.map((n, i) => task(`i${i}`, n, i + 1));
          const sw = constructedSwitch(seededRandom(seed), focus, ints);
          expect(rulesOf(sw, focus, ints), `focus ${nf}, interruptions ${ns.join(",")}, seed ${seed}`).toEqual([]);
        }
      }
    }
    fc.assert(
      fc.property(shapes, ([nf, ns, seed]) => {
        const focus = task("f", nf, 0);
        const ints = ns.map((n, i) => task(`i${i}`, n, i + 1));
        const sw = constructedSwitch(seededRandom(seed), focus, ints);
        expectWellFormed(sw, focus, ints);
        expect(rulesOf(sw, focus, ints)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("every-stage: a focus of many stages returns before each of them; files of the old rule are held to min(2, stages − 1)", () => {
    const focus = task("f", 6, 0);
    const ints = [3, 2, 2, 1].map((n, i) => task(`i${i}`, n, i + 1));
    for (let seed = 0; seed < 20; seed++) {
      const sw = switchSchedule(seededRandom(seed), focus, ints);
      expect(countFocusReturns(sw, "f"), `seed ${seed}`).toBe(5);
    }
    // Two returns for six stages: enough under the old rule, three short under the new one.
    const st = (t: ScheduledTask, k: number): ScheduleStep => ({
      kind: "stage",
      task: t.id,
      workspace: t.workspace,
      stage: k,
      text: t.requests[k - 1]!,
    });
    const [a, b, c, d] = ints as [ScheduledTask, ScheduledTask, ScheduledTask, ScheduledTask];
    const two = [
      st(focus, 1),
      st(a, 1),
      st(b, 1),
      st(focus, 2),
      st(a, 2),
      st(c, 1),
      st(focus, 3),
      st(focus, 4),
      st(focus, 5),
      st(focus, 6),
      st(d, 1),
      st(b, 2),
      st(c, 2),
      { kind: "finalization" as const, task: "f", workspace: focus.workspace },
    ];
    const stages = new Map([focus, ...ints].map((t) => [t.id, t.requests.length]));
    const check = (rule: "every-stage" | "at-most-two") =>
      switchRuleViolations(
        two,
        "f",
        ints.map((t) => t.id),
        (id) => stages.get(id),
        rule,
      );
    expect(check("at-most-two")).toEqual([]);
    expect(check("every-stage")).toEqual([
      {
        property: "focus-returns",
        message: "the focus returns 2 time(s) after work on another task, at least 5 needed (stages − 1 with 6 stages)",
      },
    ]);
    // Fewer requests in all than stages − 1: the rule asks only as many returns as there are requests.
    const thin = [1, 1, 1, 1].map((n, i) => task(`j${i}`, n, i + 1));
    const eight = task("f", 8, 0);
    const sw = constructedSwitch(seededRandom(3), eight, thin);
    expect(countFocusReturns(sw, "f")).toBe(4);
    expect(rulesOf(sw, eight, thin)).toEqual([]);
  });

  it("is deterministic for a seed", () => {
    const focus = task("f", 4, 0);
    const ints = [3, 1, 2, 5].map((n, i) => task(`i${i}`, n, i + 1));
    expect(switchSchedule(seededRandom(9), focus, ints)).toEqual(switchSchedule(seededRandom(9), focus, ints));
    expect(constructedSwitch(seededRandom(9), focus, ints)).toEqual(constructedSwitch(seededRandom(9), focus, ints));
  });

  it("the check names each rule a schedule breaks, and asks no more than the tasks allow", () => {
    const focus = task("f", 3, 0);
    const ints = [2, 1, 1, 1].map((n, i) => task(`i${i}`, n, i + 1));
    const st = (t: ScheduledTask, k: number): ScheduleStep => ({
      kind: "stage",
      task: t.id,
      workspace: t.workspace,
      stage: k,
      text: t.requests[k - 1]!,
    });
    const fin: ScheduleStep = { kind: "finalization", task: "f", workspace: focus.workspace };
    const [a, b, c, d] = ints as [ScheduledTask, ScheduledTask, ScheduledTask, ScheduledTask];
    // All interruptions after the last focus stage: the focus never returns, i0's two requests are adjacent.
    const never = [st(focus, 1), st(focus, 2), st(focus, 3), st(a, 1), st(a, 2), st(b, 1), st(c, 1), st(d, 1), fin];
    expect(
      rulesOf(never, focus, ints)
        .map((v) => v.property)
        .sort(),
    ).toEqual(["focus-returns", "interruption-resumed"]);
    expect(rulesOf(never, focus, ints).find((v) => v.property === "interruption-resumed")!.message).toMatch(/^i0's 2 requests/);
    // One return is not enough with three stages; i0 split by a focus request is resumed.
    const once = [st(focus, 1), st(focus, 2), st(a, 1), st(b, 1), st(focus, 3), st(a, 2), st(c, 1), st(d, 1), fin];
    expect(rulesOf(once, focus, ints).map((v) => v.property)).toEqual(["focus-returns"]);
    expect(rulesOf(once, focus, ints)[0]!.message).toMatch(/at least 2 needed \(stages − 1 with 3 stages\)$/);
    const twice = [st(focus, 1), st(a, 1), st(b, 1), st(focus, 2), st(a, 2), st(c, 1), st(focus, 3), st(d, 1), fin];
    expect(rulesOf(twice, focus, ints)).toEqual([]);
    // A one-stage focus needs no return; an interruption cut to one of its two requests is never resumed.
    const one = task("f", 1, 0);
    const short = [st(one, 1), st(a, 1), st(b, 1), st(c, 1), st(d, 1), { ...fin }];
    expect(rulesOf(short, one, ints)).toEqual([
      { property: "interruption-resumed", message: "i0 has 2 requests but one in the switched session: it is never resumed" },
    ]);
  });
});
