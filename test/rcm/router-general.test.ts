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
    const r = extractRefs(
      "Make fontTools.otlLib.builder.buildPairPosGlyphsSubtable pad its values, as fontTools.ttLib.tables.otTables.DeltaSetIndexMap does; IPython.core.completer too, but TTFont.normalizeLocation is a method.",
    );
    expect([...r.paths]).toEqual(
      expect.arrayContaining(["fontTools/otlLib/builder", "fontTools/ttLib/tables/otTables", "IPython/core/completer"]),
    );
    expect([...r.symbols]).toEqual(expect.arrayContaining(["buildPairPosGlyphsSubtable", "DeltaSetIndexMap"]));
    expect([...r.paths].some((p) => p.startsWith("TTFont"))).toBe(false);
  });
});

describe("source roots", () => {
  it("matches a path with and without its source root (src/, lib/, Lib/, a project dir's src/)", () => {
    expect(pathKeys("Lib/fontTools/feaLib/builder.py")).toEqual(
      expect.arrayContaining(["fontTools/feaLib/builder.py", "fontTools/feaLib/builder"]),
    );
    expect(pathKeys("hypothesis-python/src/hypothesis/core.py")).toEqual(expect.arrayContaining(["hypothesis/core.py", "hypothesis/core"]));
    expect(pathKeys("src/rich/console.py")).toEqual(expect.arrayContaining(["rich/console"]));
    // A file directly in a root keeps its path: `lib/x.py` has no package to stand for.
    expect(pathKeys("lib/setup.py")).not.toContain("setup.py");
  });

  it("holds a touched file under the module paths a request may name it by, inside its package", () => {
    const index = new RouterIndex();
    index.add(plainGroup("Pad the pair values.", [write("Lib/glyphkit/otlLib/builder.py")]), "t1", null);
    for (const k of ["glyphkit/otlLib/builder", "otlLib/builder", "Lib/glyphkit/otlLib/builder.py"])
      expect(index.holders("k", k), k).toBe(1);
    expect(index.holders("k", "builder")).toBe(0);
  });
});

describe("the project's top package", () => {
  it("is no telling name: a new request naming only the main class named after the package is not another task's", () => {
    const a = route([
      plainGroup(
        "With `ParseKit(grammar, transformer=T)`, the v_args decorator of parsekit/visitors.py is ignored on Visitor subclasses; apply it to their callbacks.",
        [write("parsekit/visitors.py")],
      ),
      plainGroup(
        "Support rule priorities with the LALR parser: ParseKit(grammar, parser='lalr') rejects priorities today and grammars with rule priorities fail on a reduce conflict instead of resolving it.",
      ),
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

describe("evidence too thin to decide on: deferred to the auxiliary model", () => {
  it("one name of the project's API alone places no new report", () => {
    const a = route([
      plainGroup(
        "Importing a rule from a relative grammar drops its rename: `%import .shapes.pair -> p` should give " +
          "`Tree('p', [...])` in parsekit/loader.py.",
        [write("parsekit/loader.py")],
      ),
      plainGroup(
        "The chart parser hides an ambiguity at the top: with ambiguity='explicit' and several distinct " +
          "solutions, return a `Tree('_ambig', [...])` over all of them instead of one.",
      ),
    ]);
    expect(a[1]!.task === "t1" && a[1]!.confidence >= 0.8).toBe(false);
  });

  it("a request of a few words that names nothing is not placed by likeness", () => {
    const a = route([
      plainGroup(
        "Make the cache of downloads in fetchkit/cache.py expire entries after their max age, and fix the " +
          "lock it holds while writing.",
        [write("fetchkit/cache.py")],
      ),
      plainGroup(
        "Add an isdir override to the HTTP filesystem in fetchkit/http.py so that listing a URL that ends in " + "a slash works.",
        [write("fetchkit/http.py")],
      ),
      plainGroup("Fix"),
    ]);
    expect(a[2]!.confidence).toBeLessThan(0.8);
  });

  it("a report naming only a module another task changed is deferred; a follow-up on it is not", () => {
    const first =
      "The completer in shellkit/completer.py offers file names when completing an attribute of a call " +
      "result: `compute().` lists files.";
    const a = route([
      plainGroup(first, [write("shellkit/completer.py")]),
      plainGroup("Traceback frames in shellkit/tracebacks.py lose their last line in plain mode; print it " + "again.", [
        write("shellkit/tracebacks.py"),
      ]),
      plainGroup(
        "The completer in shellkit/completer.py misjudges the context when the object before the dot is a " +
          "subscript: `d[0].k` is taken for a global name.",
      ),
      plainGroup(
        "Follow-up on file names in the completer (shellkit/completer.py): hide them for any attribute " +
          "completion, not only of call results.",
      ),
    ]);
    expect(a[2]!.confidence).toBeLessThan(0.8);
    expect(a[3]).toMatchObject({ task: "t1" });
    expect(a[3]!.confidence).toBeGreaterThanOrEqual(0.8);
  });
});

describe("a request spanning tasks", () => {
  it("leads with the task whose subject it speaks of, not the one holding more of the names it reaches into", () => {
    const a = route([
      plainGroup(
        "With an alternative backend, `Runner` in checkkit/engine.py passes drawn values only through the " +
          "backend's realize hook; also pass the replayed buffer of a failing example.",
        [write("checkkit/engine.py")],
      ),
      plainGroup(
        "The falsification report prints primitive values as the call that built them: " +
          "`@given(v=gen.integers())` under `@settings(verbosity=2)` shows `gen.integers().map(int)`; print " +
          "the number itself (RELEASE.rst says so).",
        [write("checkkit/printing.py"), write("RELEASE.rst")],
      ),
      plainGroup(
        "When the replay of an alternative backend's failing example through `Runner` (checkkit/engine.py) " +
          "no longer fails, raise an error instead of ending quietly; test it with `@given(v=gen.integers())` " +
          "under `@settings(verbosity=2)`, with a RELEASE.rst entry.",
      ),
    ]);
    expect(a[2]).toMatchObject({ task: "t1" });
    expect(a[2]!.confidence).toBeGreaterThanOrEqual(0.8);
  });
});
