import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pythonFold } from "../../src/mine/python-substance.js";
import { substantiveStages } from "../../src/mine/stages.js";
import { gitHistory } from "../helpers/git-history.js";
import { tempDir } from "../helpers/temp.js";

// Steps a diff cannot tell from a change of behaviour (a formatter's line joins and quotes, type hints),
// judged by the syntax tree in a real repository.
const v1 = `def area(width, height):
    """Area of a rectangle."""
    return multiply(width,
                    height, 'cm')
`;
const formatted = `def area(width, height):
    """Area of a rectangle."""
    return multiply(width, height, "cm")
`;
const documented = `def area(width, height):
    """Area of a rectangle, in square centimetres."""
    return multiply(width, height, "cm")
`;
const typed = `from __future__ import annotations
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from units import Length

def area(width: Length, height: Length) -> float:
    """Area of a rectangle, in square centimetres."""
    return multiply(width, height, "cm")
`;
const changed = typed.replace('"cm")', '"mm")');

// A report printed since the base; a step adds a debug print and an import, a later one takes both out.
const reporting = `import logging

def report(rows):
    print("rows:", len(rows))
    for r in rows:
        logging.info(r)
`;
const debugging = `import logging
import pprint

def report(rows):
    print("rows:", len(rows))
    for r in rows:
        print("DEBUG", r)
        logging.info(r)
`;
const quiet = `import logging

def report(rows):
    for r in rows:
        logging.info(r)
`;

describe("the syntax tree's word on a step", () => {
  const root = tempDir("switch-swe-pysub-");
  const h = gitHistory(root, "repo");
  h.init();
  const base = h.commit("base", { "pkg/geo.py": v1, "pkg/notes.txt": "a\n" });
  const fmt = h.commit("black", { "pkg/geo.py": formatted });
  const doc = h.commit("docstring", { "pkg/geo.py": documented });
  const hints = h.commit("type hints", { "pkg/geo.py": typed });
  const behaviour = h.commit("millimetres", { "pkg/geo.py": changed });
  const mixed = h.commit("hints and data", { "pkg/geo.py": typed, "pkg/table.csv": "x\n" });
  const gitDir = join(h.repo, ".git");
  const isSource = (p: string) => !p.startsWith("tests/") && !p.endsWith(".txt");

  it("calls a reformatting formatting, a docstring edit documentation, added type hints type annotations", async () => {
    expect(await pythonFold(gitDir, base, base, fmt, isSource)).toBe("formatting only");
    expect(await pythonFold(gitDir, base, fmt, doc, isSource)).toBe("documentation only");
    expect(await pythonFold(gitDir, base, doc, hints, isSource)).toBe("type annotations only");
  });

  it("leaves a change of behaviour, or a step that changes a source file other than Python, a stage", async () => {
    expect(await pythonFold(gitDir, base, hints, behaviour, isSource)).toBeNull();
    expect(await pythonFold(gitDir, base, behaviour, mixed, isSource)).toBeNull();
  });

  it("calls a step that only takes out imports and print() calls an earlier step added leftover removal, and one that drops an older print a stage", async () => {
    const h2 = gitHistory(root, "leftovers");
    h2.init();
    const start = h2.commit("base", { "pkg/report.py": reporting });
    const debug = h2.commit("count rows, with a debug print", { "pkg/report.py": debugging });
    // Back to the base's text: only the debug lines go.
    const clean = h2.commit("remove debug print, unused import", { "pkg/report.py": reporting });
    const silent = h2.commit("no row count on stdout", { "pkg/report.py": quiet });
    const git2 = join(h2.repo, ".git");
    expect(await pythonFold(git2, start, debug, clean, isSource)).toBe("leftover removal");
    // The row count was printed at the base: taking it out changes what users see.
    expect(await pythonFold(git2, start, clean, silent, isSource)).toBeNull();
    // Judged against a base that already held the debug lines, the same step is a change.
    expect(await pythonFold(git2, debug, debug, clean, isSource)).toBeNull();
    // The step that adds them is a stage.
    expect(await pythonFold(git2, start, start, debug, isSource)).toBeNull();
  });

  it("folds those steps into the next stage when a candidate's stages are counted", async () => {
    const r = await substantiveStages(gitDir, base, [fmt, doc, hints, behaviour], isSource, (p) => p.startsWith("tests/"));
    expect(r.cuts).toEqual([behaviour]);
    expect(r.folded.map((f) => f.rule)).toEqual(["formatting only", "documentation only", "type annotations only"]);
  });
});
