import { describe, expect, it } from "vitest";
import { renderAssembly, type AssemblyPlan } from "../../src/rcm/assembly.js";
import { RcmEngine } from "../../src/rcm/engine.js";
import type { Group } from "../../src/rcm/history.js";
import { parseRcmOptions } from "../../src/rcm/options.js";
import type { Action } from "../../src/rcm/history.js";
import { plainGroup, say, write } from "./helpers/history.js";
import { replay } from "./helpers/replay.js";

const edit = (path: string, newString: string, messageId: string): Action => ({
  kind: "tool",
  tool: "edit",
  args: { filePath: path, oldString: "x", newString },
  paths: [path],
  status: "ok",
  text: "Edit applied successfully.",
  messageId,
});

/** Feeds groups one by one (each is the current request once); returns the plan of every step. */
const replayPlans = (e: RcmEngine, groups: Group[]): AssemblyPlan[] => replay(e, groups, (plan) => plan);

const userTextsSeen = (groups: Group[], plan: AssemblyPlan) =>
  renderAssembly(groups, plan)
    .filter((m) => m.role === "user")
    .map((m) => m.text);

/** Three unrelated tasks of one repository, each with its own files and symbols. */
const amounts = plainGroup(
  "Implement `parse_amount` in ledger/amount.py: amounts in parentheses are negative.",
  [write("ledger/amount.py", "a1"), say("Done.", "a1")],
  "u1",
);
const income = plainGroup(
  "Write the income report renderer `render_income` in reports/income.py with a grand total row.",
  [write("reports/income.py", "a2")],
  "u2",
);
const tags = plainGroup(
  "Add tag filtering `filter_by_tag` to search/tags.py, matching tags case-insensitively.",
  [write("search/tags.py", "a3")],
  "u3",
);

describe("multi-task assignment", () => {
  it("assigns a request that names two tasks' files and symbols to both, and both keep it in their history", () => {
    const span = plainGroup(
      "Make `render_income` in reports/income.py call `parse_amount` from ledger/amount.py for every cell.",
      [write("reports/income.py", "a4")],
      "u4",
    );
    const backToTags = plainGroup("In search/tags.py, `filter_by_tag` should also accept a list of tags.", [], "u5");
    const backToAmounts = plainGroup("`parse_amount` in ledger/amount.py must also accept a leading minus sign.", [], "u6");
    const groups = [amounts, income, tags, span, backToTags, backToAmounts];
    const e = new RcmEngine(parseRcmOptions({ mode: "router", related: 1 }));
    const plans = replayPlans(e, groups);
    const a = e.memory.router.assignments;
    expect([a.u4!.task, ...(a.u4!.also ?? [])].sort()).toEqual([a.u1!.task, a.u2!.task].sort());
    expect(a.u4!.method).toBe("multi");
    expect(a.u4!.confidence).toBeGreaterThanOrEqual(0.8);
    // The spanning request sees both tasks' histories and not the third task's.
    const atSpan = userTextsSeen(groups.slice(0, 4), plans[3]!);
    expect(atSpan).toEqual([amounts.userText, income.userText, span.userText]);
    // Back on the tags task: the spanning request is not its history.
    expect(userTextsSeen(groups.slice(0, 5), plans[4]!)).toEqual([tags.userText, backToTags.userText]);
    // Back on the amounts task: the spanning request is part of its history too.
    expect(userTextsSeen(groups, plans[5]!)).toEqual([amounts.userText, span.userText, backToAmounts.userText]);
  });

  it("keeps one task when the other task is only mentioned in passing (no file or symbol of its own)", () => {
    const one = plainGroup("In reports/income.py, `render_income` should right-align the totals like the amounts.", [], "u4");
    const e = new RcmEngine(parseRcmOptions({ mode: "router", related: 1 }));
    replayPlans(e, [amounts, income, tags, one]);
    expect(e.memory.router.assignments.u4).toMatchObject({ task: e.memory.router.assignments.u2!.task });
    expect(e.memory.router.assignments.u4!.also).toBeUndefined();
  });
});

describe("related-task retention", () => {
  // Two tasks on the same module (shared files and symbols) and one elsewhere.
  const groups = [
    plainGroup("Add `Budget` limits to budget/limits.py with `check_limit(account, amount)`.", [write("budget/limits.py", "b1")], "v1"),
    plainGroup(
      "Add tag filtering `filter_by_tag` to search/tags.py, matching tags case-insensitively.",
      [write("search/tags.py", "b2")],
      "v2",
    ),
    // A new task whose edits also touch the first task's module and function.
    plainGroup(
      "Add budget/alerts.py with `limit_alert` that warns about accounts near their limit.",
      [write("budget/alerts.py", "b3"), edit("budget/limits.py", "def check_limit(account, amount, warn=None):", "b3")],
      "v3",
    ),
    plainGroup("Make `filter_by_tag` in search/tags.py accept a prefix like `tag:*`.", [], "v4"),
    plainGroup("`limit_alert` in budget/alerts.py should include the remaining amount.", [], "v5"),
  ];

  it("keeps the history of a task that shares files and symbols with the routed one, and drops the unrelated one", () => {
    const e = new RcmEngine(parseRcmOptions({ mode: "router" }));
    const plans = replayPlans(e, groups);
    const a = e.memory.router.assignments;
    const [limits, tagsTask, alerts] = [a.v1!.task, a.v2!.task, a.v3!.task];
    expect(new Set([limits, tagsTask, alerts]).size).toBe(3);
    expect(a.v5!.task).toBe(alerts);
    const seen = userTextsSeen(groups, plans[4]!);
    expect(seen).toContain(groups[0]!.userText); // related: same module, same function
    expect(seen).not.toContain(groups[1]!.userText);
    expect(seen).not.toContain(groups[3]!.userText);
  });

  it("keeps only the request's own tasks with related: 1", () => {
    const e = new RcmEngine(parseRcmOptions({ mode: "router", related: 1 }));
    const plans = replayPlans(e, groups);
    expect(userTextsSeen(groups, plans[4]!)).toEqual([groups[2]!.userText, groups[4]!.userText]);
  });
});
