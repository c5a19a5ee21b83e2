import { describe, expect, it } from "vitest";
import { contradictedUpstream, noBehaviourStages, privateTargets, repairStages } from "../../src/audit/patch-checks.js";

const isSource = (p: string) => p.endsWith(".py");
/** A one-hunk diff of pkg/m.py from its lines: ` ` context, `-` removed, `+` added. */
const diff = (lines: string[]): string => {
  const old = lines.filter((l) => !l.startsWith("+")).length;
  const neu = lines.filter((l) => !l.startsWith("-")).length;
  return `diff --git a/pkg/m.py b/pkg/m.py\n--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ -1,${old} +1,${neu} @@\n${lines.join("\n")}\n`;
};

describe("patch checks", () => {
  it("no-behaviour-stage: Python-2-only methods and import removals; a change of behaviour is left alone", () => {
    const py2 = diff([
      "class A:",
      "     def __bool__(self):",
      "         return True",
      "+",
      "+    def __nonzero__(self):",
      "+        return self.__bool__()",
    ]);
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
    expect(repairStages([s1, repair, extension], isSource).map((f) => [f.stage, f.kind, f.severity])).toEqual([
      [2, "repair-stage", "warning"],
    ]);
  });

  it("authored-contradicted: an inverted or deleted upstream line; a changed one is an extension", () => {
    const up = diff([" def f(x):", "+    if x < 0:", "+        return 0", "     return x"]);
    const inverted = diff([" def f(x):", "-    if x < 0:", "+    if x >= 0:", "         return 0"]);
    const extended = diff([" def f(x):", "-    if x < 0:", "+    if x < 0 or x is None:", "         return 0"]);
    const deleted = diff([" def f(x):", "-    if x < 0:", "-        return 0", "     return x"]);
    const moved = diff([
      " def f(x):",
      "-    if x < 0:",
      "-        return 0",
      "+    try:",
      "+        if x < 0:",
      "+            return 0",
      "+    finally:",
      "+        pass",
      "     return x",
    ]);
    expect(contradictedUpstream([up], [inverted, extended, deleted, moved], isSource).map((f) => [f.stage, f.evidence])).toEqual([
      [2, '"if x < 0:" becomes "if x >= 0:"'],
      [4, '"if x < 0:" deleted, "return 0" deleted'],
    ]);
  });

  it("authored-contradicted: only the lines that replace a deleted one can invert it, at its indentation; an import left unused is no take-back", () => {
    const up = diff([
      "+from pkg.types import Result",
      " def f(target):",
      "+    if not isinstance(target, Name):",
      "+        return False",
      "     return True",
    ]);
    // The deleted check is replaced by one of the same sense; the new helper's first line, elsewhere in the hunk, reads as its opposite.
    const helper = diff([
      "-from pkg.types import Result",
      " def f(target):",
      "-    if not isinstance(target, Name):",
      "+    if names(target) is None:",
      "         return False",
      "     return True",
      "+def names(target):",
      "+    if isinstance(target, Name):",
      "+        return [target]",
    ]);
    const inverted = diff([
      " def f(target):",
      "-    if not isinstance(target, Name):",
      "+    if isinstance(target, Name):",
      "         return False",
      "     return True",
    ]);
    const unusedImport = diff(["-from pkg.types import Result", " def f(target):"]);
    expect(contradictedUpstream([up], [helper, inverted, unusedImport], isSource).map((f) => [f.stage, f.evidence])).toEqual([
      [3, '"if not isinstance(target, Name):" becomes "if isinstance(target, Name):"'],
    ]);
  });

  it("f2p-elsewhere: a test using a private name the stage defines; a protocol hook (`_name_`) is no private name", () => {
    const stage = diff([" X = 1", "+def _helper(x):", "+    return x", "+def _repr_html_():", "+    return ''"]);
    const tests =
      "diff --git a/tests/test_m.py b/tests/test_m.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_m.py\n@@ -0,0 +1,6 @@\n+from pkg import m\n+def test_h():\n+    assert m._helper(1) == 1\n+def test_r():\n+    assert m._repr_html_() == ''\n+X = 2\n";
    const found = privateTargets([["tests/test_m.py::test_h", "tests/test_m.py::test_r"]], [stage], tests);
    expect(found.map((f) => [f.stage, f.kind, f.evidence])).toEqual([[1, "f2p-elsewhere", "tests/test_m.py::test_h uses _helper"]]);
  });
});
