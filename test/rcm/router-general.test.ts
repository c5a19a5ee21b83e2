import { describe, expect, it } from "vitest";
import { RcmEngine } from "../../src/rcm/engine.js";
import { parseRcmOptions } from "../../src/rcm/options.js";
import { extractRefs, pathKeys } from "../../src/rcm/refs.js";
import { RouterIndex } from "../../src/rcm/router-index.js";
import { plainGroup, write } from "./helpers/history.js";
import { replay } from "./helpers/replay.js";
import type { Group } from "../../src/rcm/history.js";

/** Rules that carry the router to repositories its rules were not worked out on (issue 45): no naming style, source root or package name of one project. */
const route = (groups: Group[]) => {
  const e = new RcmEngine(parseRcmOptions({ mode: "rcm" }));
  return replay(e, groups, (_plan, g) => e.memory.router.assignments[g.id]!);
};

describe("module paths in any naming style", () => {
  it("reads camelCase and capitalised dotted names as module paths, a class's method as no module", () => {
    const r = extractRefs("Make fontTools.otlLib.builder.buildPairPosGlyphsSubtable pad its values, as fontTools.ttLib.tables.otTables.DeltaSetIndexMap does; IPython.core.completer too, but TTFont.normalizeLocation is a method.");
    expect([...r.paths]).toEqual(expect.arrayContaining(["fontTools/otlLib/builder", "fontTools/ttLib/tables/otTables", "IPython/core/completer"]));
    expect([...r.symbols]).toEqual(expect.arrayContaining(["buildPairPosGlyphsSubtable", "DeltaSetIndexMap"]));
    expect([...r.paths].some((p) => p.startsWith("TTFont"))).toBe(false);
  });
});

describe("source roots", () => {
  it("matches a path with and without its source root (src/, lib/, Lib/, a project dir's src/)", () => {
    expect(pathKeys("Lib/fontTools/feaLib/builder.py")).toEqual(expect.arrayContaining(["fontTools/feaLib/builder.py", "fontTools/feaLib/builder"]));
    expect(pathKeys("hypothesis-python/src/hypothesis/core.py")).toEqual(expect.arrayContaining(["hypothesis/core.py", "hypothesis/core"]));
    expect(pathKeys("src/rich/console.py")).toEqual(expect.arrayContaining(["rich/console"]));
    // A file directly in a root keeps its path: `lib/x.py` has no package to stand for.
    expect(pathKeys("lib/setup.py")).not.toContain("setup.py");
  });

  it("holds a touched file under the module paths a request may name it by, inside its package", () => {
    const index = new RouterIndex();
    index.add(plainGroup("Pad the pair values.", [write("Lib/glyphkit/otlLib/builder.py")]), "t1", null);
    for (const k of ["glyphkit/otlLib/builder", "otlLib/builder", "Lib/glyphkit/otlLib/builder.py"]) expect(index.holders("k", k), k).toBe(1);
    expect(index.holders("k", "builder")).toBe(0);
  });
});

describe("the project's top package", () => {
  it("is no telling name: a new request naming only the main class named after the package is not another task's", () => {
    const a = route([
      plainGroup("With `ParseKit(grammar, transformer=T)`, the v_args decorator of parsekit/visitors.py is ignored on Visitor subclasses; apply it to their callbacks.", [write("parsekit/visitors.py")]),
      plainGroup("Support rule priorities with the LALR parser: ParseKit(grammar, parser='lalr') rejects priorities today and grammars with rule priorities fail on a reduce conflict instead of resolving it."),
    ]);
    expect(a[1]!.task).not.toBe("t1");
  });

  it("is known from the files every task touched, below a source root, in any case", () => {
    const index = new RouterIndex();
    index.add(plainGroup("One.", [write("Lib/fontKit/feaLib/builder.py")]), "t1", null);
    index.add(plainGroup("Two.", [write("Lib/fontKit/varLib/varStore.py"), write("Tests/varLib/data.ttx")]), "t2", null);
    expect([...index.topPackages()]).toEqual(["fontkit"]);
  });
});
