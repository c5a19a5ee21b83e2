import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { elidedNote, missingRequests, planAssembly, renderAssembly } from "../../src/rcm/assembly.js";
import { RcmEngine } from "../../src/rcm/engine.js";
import type { Action, Group } from "../../src/rcm/history.js";
import { parseRcmOptions } from "../../src/rcm/options.js";
import { recordOpen } from "../../src/rcm/state-record.js";
import { harnessGroup, plainGroup, read, write } from "./helpers/history.js";

const words = "amount ledger report parse render csv export slug wrap template filter balance income month rule category total".split(" ");

const actionArb: fc.Arbitrary<(ws: string) => Action> = fc.oneof(
  fc.constantFrom(...words).map((w) => (ws: string) => write(`${ws}/${w}.py`)),
  fc.constantFrom(...words).map((w) => (): Action => ({ kind: "assistant", text: `I updated the ${w} code.` })),
  fc.constantFrom(...words).map((w) => (ws: string): Action => ({
    kind: "tool",
    tool: "read",
    args: { filePath: `${ws}/${w}.py` },
    paths: [`${ws}/${w}.py`],
    status: "ok",
    text: `${w} = 1`,
  })),
);

const sessionArb = fc.record({
  tasks: fc.integer({ min: 1, max: 5 }),
  steps: fc.array(
    fc.record({
      task: fc.nat(4),
      actions: fc.array(actionArb, { maxLength: 3 }),
      words: fc.array(fc.constantFrom(...words), { minLength: 3, maxLength: 12 }),
    }),
    { minLength: 1, maxLength: 25 },
  ),
  mode: fc.constantFrom("off" as const, "router" as const, "rcm" as const),
  threshold: fc.constantFrom(0.5, 0.8, 0.9),
  keepRecent: fc.integer({ min: 0, max: 3 }),
  workspaceLines: fc.boolean(),
  related: fc.constantFrom(0.5, 1),
});

describe("assembly", () => {
  it("invariant: every request of the active task reaches the model verbatim, the current one last (property)", () => {
    fc.assert(
      fc.property(sessionArb, (s) => {
        const e = new RcmEngine(parseRcmOptions({ mode: s.mode, threshold: s.threshold, keepRecent: s.keepRecent, related: s.related }));
        const groups: Group[] = [];
        const truth: number[] = [];
        s.steps.forEach((step, i) => {
          const task = step.task % s.tasks;
          const ws = `/run/w0${task}`;
          const text = `Request ${i} for task ${task}: ${step.words.join(" ")}.`;
          const g = s.workspaceLines ? harnessGroup(ws, text) : plainGroup(text);
          groups.push(g);
          truth.push(task);
          const plan = e.prepare(groups);
          const rendered = renderAssembly(groups, plan);
          const users = rendered.filter((m) => m.role === "user");
          // The current request is the last user message, and any state record comes before it.
          expect(users.at(-1)!.text.endsWith(g.userText)).toBe(true);
          if (plan.record) expect(users.at(-1)!.text.indexOf(recordOpen)).toBeLessThan(users.at(-1)!.text.indexOf(g.userText));
          const active = e.memory.router.assignments[g.id]!.task;
          // Relative to the router: every group it put in the active task keeps its request.
          const routed = groups.filter((x) => active !== null && e.memory.router.assignments[x.id]!.task === active).map((x) => x.userText);
          expect(missingRequests(rendered, routed)).toEqual([]);
          if (s.workspaceLines) {
            // With workspace lines the router is exact, so this holds for the true task too ...
            const mine = groups.filter((_, j) => truth[j] === task).map((x) => x.userText);
            expect(missingRequests(rendered, mine)).toEqual([]);
            // ... and when filtering without related-task retention, no request of another task is shown.
            if (plan.filtered && s.related === 1) {
              const others = groups.filter((_, j) => truth[j] !== task).map((x) => x.userText);
              expect(users.filter((u) => others.some((o) => u.text.includes(o)))).toEqual([]);
            }
          }
          if (s.mode === "off") expect(plan.filtered).toBe(false);
          // Exchanges are elided only where the active task's record covers them.
          const covered = new Set(active ? (e.memory.states[active]?.covered ?? []) : []);
          plan.treatments.forEach((t, j) => {
            if (t === "elided") expect(covered.has(groups[j]!.id)).toBe(true);
          });
          for (const a of step.actions) g.actions.push(a(`/run/w0${task}`));
        });
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the full history when the current request is uncertain or shared", () => {
    const groups = [harnessGroup("/r/w00", "A."), harnessGroup("/r/w01", "B.")];
    const base = { mode: "rcm" as const, threshold: 0.8, keepRecent: 2, groups, states: {} };
    const low = planAssembly({
      ...base,
      assignments: {
        [groups[0]!.id]: { task: "t1", confidence: 1, method: "first" },
        [groups[1]!.id]: { task: "t2", confidence: 0.6, method: "follow-up" },
      },
    });
    expect(low).toMatchObject({ filtered: false, record: null });
    expect(low.treatments).toEqual(["verbatim", "verbatim"]);
    const shared = planAssembly({
      ...base,
      assignments: {
        [groups[0]!.id]: { task: "t1", confidence: 1, method: "first" },
        [groups[1]!.id]: { task: null, confidence: 0.85, method: "shared" },
      },
    });
    expect(shared.filtered).toBe(false);
  });

  it("keeps shared and uncertain groups visible to every task", () => {
    const e = new RcmEngine(parseRcmOptions({ mode: "router" }));
    const groups = [
      plainGroup("Implement `parse_amount` in ledger/amount.py for negative values.", [write("ledger/amount.py")]),
      plainGroup("From now on, for all tasks, use tabs for indentation."),
      plainGroup("Add the income report renderer in reports/income.py with totals per category.", [write("reports/income.py")]),
      plainGroup("Next, in reports/income.py the renderer should also print a grand total."),
    ];
    const seen: Group[] = [];
    let plan = e.prepare([]);
    for (const g of groups) {
      seen.push(g);
      plan = e.prepare(seen);
    }
    expect(plan.filtered).toBe(true);
    expect(plan.treatments).toEqual(["dropped", "verbatim", "verbatim", "verbatim"]);
  });

  it("mode rcm: older exchanges of the task give way to the record, recent ones stay verbatim", () => {
    const e = new RcmEngine(parseRcmOptions({ mode: "rcm", keepRecent: 1 }));
    const groups: Group[] = [];
    for (let i = 0; i < 4; i++) {
      groups.push(harnessGroup("/r/w00", `Stage ${i} of the export.`));
      e.prepare(groups);
      groups[i]!.actions.push(read(`/r/w00/export_${i}.py`, 2000), write(`/r/w00/export_${i}.py`));
    }
    groups.push(harnessGroup("/r/w00", "Stage 4 of the export."));
    const plan = e.prepare(groups);
    expect(plan.treatments).toEqual(["elided", "elided", "elided", "verbatim", "verbatim"]);
    const rendered = renderAssembly(groups, plan);
    expect(rendered.filter((m) => m.text === elidedNote)).toHaveLength(3);
    expect(plan.record).toContain("request 1: changed export_0.py");
    // What the model still reads verbatim (stage 3's exchange) is not repeated in the record.
    expect(plan.record).not.toContain("request 4: changed");
    expect(
      missingRequests(
        rendered,
        groups.map((g) => g.userText),
      ),
    ).toEqual([]);
  });

  it("mode rcm: no record and no elision when they would only repeat or lengthen what the model reads", () => {
    const e = new RcmEngine(parseRcmOptions({ mode: "rcm", keepRecent: 0 }));
    const groups: Group[] = [];
    for (let i = 0; i < 3; i++) {
      groups.push(harnessGroup("/r/w00", `Stage ${i} of the export.`));
      e.prepare(groups);
      groups[i]!.actions.push(write(`/r/w00/export_${i}.py`));
    }
    groups.push(harnessGroup("/r/w00", "Stage 3 of the export."));
    const plan = e.prepare(groups);
    // One short tool call per request: the note would be longer than what it replaces.
    expect(plan.treatments).toEqual(["verbatim", "verbatim", "verbatim", "verbatim"]);
    expect(plan.record).toBeNull();
  });
});
