import { describe, expect, it } from "vitest";
import { RcmEngine } from "../../src/rcm/engine.js";
import { parseRcmOptions } from "../../src/rcm/options.js";
import { emptyTaskState, renderTaskState } from "../../src/rcm/state-record.js";
import { foldGroup, stateLimits } from "../../src/rcm/state-updater.js";
import { harnessGroup, say, write } from "./helpers/history.js";

describe("task state memory (deterministic updater)", () => {
  it("records the goal, constraints, completed work as an observation with its source, and files", () => {
    const s = emptyTaskState("t1", "/r/w00");
    const g = harnessGroup(
      "/r/w00",
      "Add `parse_amount` to ledger/amount.py. It must accept negative values. Keep `format_amount` unchanged.",
      [write("/r/w00/ledger/amount.py", "msg_a1"), say("I added parse_amount to ledger/amount.py.", "msg_a1")],
    );
    foldGroup(s, g);
    expect(s.goal).toMatchObject({
      text: "Add `parse_amount` to ledger/amount.py.",
      kind: "requirement",
      source: g.userMessageId,
      request: 1,
    });
    expect(s.constraints.map((c) => c.text)).toEqual(["It must accept negative values.", "Keep `format_amount` unchanged."]);
    expect(s.completed).toEqual([
      expect.objectContaining({ text: "request 1: changed ledger/amount.py", kind: "observation", source: "msg_a1" }),
    ]);
    expect(s.pending).toEqual([]);
    expect(s.files.map((f) => f.text)).toContain("ledger/amount.py (edited)");
    expect(s.covered).toEqual([g.id]);
    // Folding is idempotent.
    foldGroup(s, g);
    expect(s.requests).toBe(1);
  });

  it("keeps an assistant claim a claim until a later tool result supports it", () => {
    const s = emptyTaskState("t1", "/r/w00");
    foldGroup(
      s,
      harnessGroup("/r/w00", "Make the tests for the parser pass.", [
        say("I fixed the parser in ledger/parse.py and the tests pass now.", "msg_b1"),
      ]),
    );
    const claim = s.completed.find((i) => i.source === "msg_b1")!;
    expect(claim.kind).toBe("claim");
    expect(s.pending).toEqual([]);
    foldGroup(
      s,
      harnessGroup("/r/w00", "Run the tests again.", [
        { kind: "tool", tool: "bash", args: { command: "pytest -q" }, status: "ok", text: "12 passed in 0.3s", messageId: "msg_c1" },
      ]),
    );
    expect(claim).toMatchObject({ kind: "observation", supported_by: "msg_c1" });
  });

  it("records a failed tool call as an open uncertainty until a later success on the same file", () => {
    const s = emptyTaskState("t1", "/r/w00");
    foldGroup(
      s,
      harnessGroup("/r/w00", "Edit the config loader.", [
        {
          kind: "tool",
          tool: "edit",
          args: { filePath: "/r/w00/cfg/load.py" },
          paths: ["/r/w00/cfg/load.py"],
          status: "error",
          text: "oldString not found in content",
          messageId: "m1",
        },
      ]),
    );
    expect(s.uncertainties).toEqual([
      expect.objectContaining({
        kind: "observation",
        source: "m1",
        text: expect.stringContaining("edit on cfg/load.py failed: oldString not found"),
      }),
    ]);
    expect(s.pending.map((p) => p.request)).toEqual([1]);
    foldGroup(s, harnessGroup("/r/w00", "Try again.", [write("/r/w00/cfg/load.py", "m2")]));
    expect(s.uncertainties).toEqual([]);
  });

  it("keeps every section bounded", () => {
    const s = emptyTaskState("t1", null);
    for (let i = 0; i < 40; i++) {
      foldGroup(
        s,
        harnessGroup("/r/w00", `Request ${i}: you must keep \`sym_${i}\` in mod_${i}.py unchanged. Also never touch other_${i}.py.`, [
          write(`/r/w00/f${i}.py`),
        ]),
      );
    }
    expect(s.constraints.length).toBeLessThanOrEqual(stateLimits.constraints);
    expect(s.completed.length).toBeLessThanOrEqual(stateLimits.completed);
    expect(s.files.length).toBeLessThanOrEqual(stateLimits.files);
    expect(s.symbols.length).toBeLessThanOrEqual(stateLimits.symbols);
    // The newest items are the ones kept.
    expect(s.completed.at(-1)!.text).toContain("f39.py");
  });

  it("renders a labelled record that yields to the current request and leaves out what visible requests say", () => {
    const s = emptyTaskState("t2", "/r/w01");
    const g = harnessGroup("/r/w01", "Add the CSV export. It must quote every field.", [write("/r/w01/export.py", "m9")]);
    foldGroup(s, g);
    const full = renderTaskState(s);
    expect(full).toMatch(/^<task-state task="t2" workspace="\/r\/w01">/);
    expect(full).toContain("the current request overrides it");
    expect(full).toContain("- It must quote every field. [requirement, request 1]");
    const compact = renderTaskState(s, new Set([g.userMessageId]));
    expect(compact).not.toContain("It must quote every field.");
    expect(compact).toContain("request 1: changed export.py [observation, request 1]");
  });

  it("folds completed groups in bounded batches", () => {
    const e = new RcmEngine(parseRcmOptions({ mode: "rcm", batchSize: 2 }));
    const groups = Array.from({ length: 6 }, (_, i) => harnessGroup("/r/w00", `Step ${i}.`, [write(`/r/w00/s${i}.py`)]));
    // The plugin was enabled mid-session: all six groups arrive at once.
    e.prepare(groups);
    expect(e.memory.states.t1!.covered).toHaveLength(2);
    e.prepare(groups);
    expect(e.memory.states.t1!.covered).toHaveLength(4);
    e.prepare(groups);
    e.prepare(groups);
    // The last group is the current request: it is folded only once a later request exists.
    expect(e.memory.states.t1!.covered).toHaveLength(5);
  });
});
