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
    expect(await pythonFold(gitDir, base, fmt, isSource)).toBe("formatting only");
    expect(await pythonFold(gitDir, fmt, doc, isSource)).toBe("documentation only");
    expect(await pythonFold(gitDir, doc, hints, isSource)).toBe("type annotations only");
  });

  it("leaves a change of behaviour, or a step that changes a source file other than Python, a stage", async () => {
    expect(await pythonFold(gitDir, hints, behaviour, isSource)).toBeNull();
    expect(await pythonFold(gitDir, behaviour, mixed, isSource)).toBeNull();
  });

  it("folds those steps into the next stage when a candidate's stages are counted", async () => {
    const r = await substantiveStages(gitDir, base, [fmt, doc, hints, behaviour], isSource, (p) => p.startsWith("tests/"));
    expect(r.cuts).toEqual([behaviour]);
    expect(r.folded.map((f) => f.rule)).toEqual(["formatting only", "documentation only", "type annotations only"]);
  });
});
