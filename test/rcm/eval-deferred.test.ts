import { describe, expect, it } from "vitest";
import { evaluateSessions } from "../../src/rcm/eval/evaluate.js";
import { formatEvalReport } from "../../src/rcm/eval/format.js";
import { poolRunEvals } from "../../src/rcm/eval/pooled.js";
import type { ReplaySession, ReplayStep } from "../../src/rcm/eval/replay.js";

function step(i: number, task: string, text: string, paths: string[]): ReplayStep {
  const id = `r${i}`;
  return {
    group: { id, userMessageId: id, userText: `Repository: ledger\n\n${text}`, actions: [] },
    task,
    role: task === "A" ? "focus" : "interruption",
    stage: 1,
    focusReturn: false,
    continuation: false,
    actions: paths.length === 0 ? [] : [{ kind: "tool", tool: "apply_patch", text: "", messageId: `${id}#0`, paths, status: "ok" }],
  };
}

// Two tasks; the third request says nothing the router can place ("ok, go on"): it is deferred.
const session: ReplaySession = {
  session: "p1.switch",
  pair: "p1",
  condition: "switch",
  steps: [
    step(0, "A", 'Add parse_amount to ledger/amount.py: it reads "1,234.50" as a Decimal.', ["ledger/amount.py"]),
    step(1, "B", "render_income in reports/income.py should print totals right-aligned in a fixed-width column.", ["reports/income.py"]),
    step(2, "A", "ok, go on", []),
    step(3, "A", "parse_amount in ledger/amount.py should also accept a minus sign and parentheses for negatives.", ["ledger/amount.py"]),
  ],
};

describe("rcm eval: deferred requests are reported apart", () => {
  const report = evaluateSessions([session], [], { mode: "router", workspaceLines: ["hidden"] });
  const v = report.variants[0]!;

  it("measures routing on the requests the router decided, and the deferred share next to it", () => {
    expect(v).toMatchObject({ decided: 3, deferred: 1, abstained: 1, routed_correctly: 3, routing_accuracy: 1 });
    expect(v).toMatchObject({ deferred_share: 0.25, accuracy_all_requests: 0.75 });
  });

  it("says both in the text report and in the pooled rows", () => {
    const text = formatEvalReport(report);
    expect(text).toMatch(/routing accuracy\s+100\.0% of the 3 requests decided/);
    expect(text).toMatch(/deferred\s+25\.0% \(1 of 4 below the threshold/);
    const pooled = poolRunEvals([{ run_dir: "run", repository: "ledger", report }]);
    expect(pooled.pooled[0]).toMatchObject({ routing_accuracy: 1, deferred: 1, deferred_share: 0.25, accuracy_all_requests: 0.75 });
  });
});
