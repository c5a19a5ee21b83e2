import { describe, expect, it } from "vitest";
import { contradictedUpstream, noBehaviourStages, repairStages } from "../../src/audit/patch-checks.js";

const isSource = (p: string) => p.endsWith(".py");
/** A one-hunk diff of pkg/m.py from its lines: ` ` context, `-` removed, `+` added. */
const diff = (lines: string[]): string => {
  const old = lines.filter((l) => !l.startsWith("+")).length;
  const neu = lines.filter((l) => !l.startsWith("-")).length;
  return `diff --git a/pkg/m.py b/pkg/m.py\n--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -1,${old} +1,${neu} @@\n${lines.join("\n")}\n`;
};

describe("patch checks", () => {
  it("no-behaviour-stage: Python-2-only methods and import removals; a change of behaviour is left alone", () => {
    const py2 = diff(["class A:", "     def __bool__(self):", "         return True", "+", "+    def __nonzero__(self):", "+        return self.__bool__()"]);
    const imports = diff(["-import os", " import sys", " X = 1"]);
    const real = diff([" def f(x):", "-    return x", "+    return x + 1"]);
    const found = noBehaviourStages([py2, imports, real], isSource);
    expect(found.map((f) => [f.stage, f.severity, f.what])).toEqual([
      [1, "error", "the stage changes only Python-2-only methods, which Python 3 never calls"],
      [2, "warning", "the stage only removes imports"],
    ]);
  });

  it("repair-stage: a later stage that only reworks lines an earlier one added; an extension is no repair", () => {
    const s1 = diff([" def f(x):", "-    return x", "+    return x * 2", "+    # doubled"]);
    const repair = diff([" def f(x):", "-    return x * 2", "+    return x * 3"]);
    const extension = diff([" def f(x):", "-    return x * 3", "+    y = x * 3", "+    return y + 1"]);
    expect(repairStages([s1, repair, extension], isSource).map((f) => [f.stage, f.kind, f.severity])).toEqual([[2, "repair-stage", "warning"]]);
  });

  it("authored-contradicted: an inverted or deleted upstream line; a changed one is an extension", () => {
    const up = diff([" def f(x):", "+    if x < 0:", "+        return 0", "     return x"]);
    const inverted = diff([" def f(x):", "-    if x < 0:", "+    if x >= 0:", "         return 0"]);
    const extended = diff([" def f(x):", "-    if x < 0:", "+    if x < 0 or x is None:", "         return 0"]);
    expect(contradictedUpstream([up], [inverted, extended], isSource).map((f) => [f.stage, f.evidence])).toEqual([[2, '"if x < 0:" becomes "if x >= 0:"']]);
  });
});
