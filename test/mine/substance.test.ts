import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { classifySteps, foldSteps, type StepClass } from "../../src/mine/substance.js";
import { tempDir } from "../verify/fixture.js";

const root = tempDir();
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A real `git diff` of one file from `before` to `after` (null: the file does not exist), named `path`. */
function diff(path: string, before: string | null, after: string | null): string {
  const dir = join(root, String(n++));
  mkdirSync(dir);
  const [a, b] = [join(dir, "a"), join(dir, "b")];
  if (before !== null) writeFileSync(a, before);
  if (after !== null) writeFileSync(b, after);
  const r = spawnSync("git", ["diff", "--no-index", "--no-color", before === null ? "/dev/null" : a, after === null ? "/dev/null" : b], {
    encoding: "utf8",
  });
  return r.stdout.replaceAll(a.slice(1), path).replaceAll(b.slice(1), path);
}

const isSource = (p: string) => /\.(py|js)$/.test(p);
const classOf = (...patches: string[]) => classifySteps(patches, isSource);
const stage: StepClass = { substantive: true };
const fold = (rule: string): StepClass => ({ substantive: false, rule }) as StepClass;

const py = `def area(w, h):
    # the area of a rectangle
    return w * h


def label(s):
    """Upper-case a label, for display."""
    return s.upper()
`;

describe("classifySteps: which steps change behaviour", () => {
  it("a change of code is a stage", () => {
    expect(classOf(diff("geo.py", py, py.replace("w * h", "w * h * 1.0")))).toEqual([stage]);
    expect(classOf(diff("geo.py", null, py))).toEqual([stage]);
    expect(classOf(diff("geo.py", py, null))).toEqual([stage]);
  });

  it("no change outside the tests is progress only; only non-source files is documentation only", () => {
    expect(classOf("")).toEqual([fold("progress only")]);
    expect(classOf(diff("README.md", "a\n", "b\n"))).toEqual([fold("documentation only")]);
  });

  it("whitespace only is formatting; in Python indentation is syntax, elsewhere line breaks are whitespace", () => {
    expect(classOf(diff("geo.py", py, py.replace("w * h", "w*h").replace("def label(s):", "def label( s ):  ")))).toEqual([
      fold("formatting only"),
    ]);
    expect(classOf(diff("geo.py", py, py.replace("\n\n\ndef label", "\n\ndef label")))).toEqual([fold("formatting only")]);
    expect(classOf(diff("geo.py", py, py.replace("    return s.upper()", "return s.upper()")))).toEqual([stage]);
    const js = "function f(a, b) {\n  return a + b;\n}\n";
    expect(classOf(diff("f.js", js, "function f(a,\n           b) { return a + b; }\n"))).toEqual([fold("formatting only")]);
    expect(classOf(diff("f.js", js, js.replace("a + b", "a - b")))).toEqual([stage]);
  });

  it("comments only is documentation; a comment marker inside a string is code", () => {
    expect(classOf(diff("geo.py", py, py.replace("# the area of a rectangle", "# w times h, whatever the units")))).toEqual([
      fold("documentation only"),
    ]);
    expect(classOf(diff("geo.py", py, py.replace("return w * h", "return w * h  # no rounding")))).toEqual([fold("documentation only")]);
    const s = 'SEP = "#"\n';
    expect(classOf(diff("sep.py", s, 'SEP = "#!"\n'))).toEqual([stage]);
  });

  it("misspellings fixed in comments, strings and docstrings are typo fixes; the same edit in code is a stage", () => {
    const typo = py.replace("rectangle", "rectangel").replace("display", "dispaly");
    expect(classOf(diff("geo.py", typo, py))).toEqual([fold("typo fix")]);
    const msg = 'def f(x):\n    raise ValueError("negatve value")\n';
    expect(classOf(diff("m.py", msg, msg.replace("negatve", "negative")))).toEqual([fold("typo fix")]);
    const doc = 'def f():\n    """Return the sum.\n\n    The reslt is rounded.\n    """\n    return 1\n';
    expect(classOf(diff("d.py", doc, doc.replace("reslt", "result")))).toEqual([fold("typo fix")]);
    const code = "def f(lenght):\n    return lenght\n";
    expect(classOf(diff("c.py", code, code.replaceAll("lenght", "length")))).toEqual([stage]);
    // A word changed for another is no typo (more than two edits), nor a word added.
    expect(classOf(diff("m.py", msg, msg.replace("negatve", "bad")))).toEqual([stage]);
    expect(classOf(diff("m.py", msg, msg.replace("negatve value", "negative value given")))).toEqual([stage]);
  });

  it("the exact inverse of an earlier step is its revert, even of a file it created", () => {
    const grow = diff("geo.py", py, py.replace("w * h", "abs(w * h)"));
    const back = diff("geo.py", py.replace("w * h", "abs(w * h)"), py);
    const other = diff("geo.py", py.replace("w * h", "abs(w * h)"), py.replace("w * h", "abs(w) * h"));
    const undoOther = diff("geo.py", py.replace("w * h", "abs(w) * h"), py);
    expect(classOf(grow, other, undoOther)).toEqual([stage, stage, stage]);
    expect(classOf(grow, diff("README.md", "a\n", "b\n"), back)).toEqual([stage, fold("documentation only"), fold("revert of step 1")]);
    expect(classOf(diff("new.py", null, "X = 1\n"), diff("new.py", "X = 1\n", null))).toEqual([stage, fold("revert of step 1")]);
    expect(classOf(back)).toEqual([stage]);
  });

  it("a step with a substantive file and a formatted one is a stage; a source change beside docs is judged on the source", () => {
    const both = diff("geo.py", py, py.replace("w * h", "w*h")) + diff("m.py", "X = 1\n", "X = 2\n");
    expect(classOf(both)).toEqual([stage]);
    expect(classOf(diff("geo.py", py, py.replace("w * h", "w*h")) + diff("README.md", "a\n", "b\n"))).toEqual([fold("formatting only")]);
  });
});

describe("foldSteps: the fold rule", () => {
  it("folds into the next stage, trailing steps into the last; the last stage ends at the last step", () => {
    const r = foldSteps([fold("progress only"), stage, fold("formatting only"), stage, fold("documentation only")]);
    expect(r.cuts).toEqual([1, 4]);
    expect(r.endOf).toEqual([1, 1, 4, 4, 4]);
    expect(r.folds).toEqual([
      { step: 0, rule: "progress only", into: 1 },
      { step: 2, rule: "formatting only", into: 4 },
      { step: 4, rule: "documentation only", into: 4 },
    ]);
  });

  it("every step substantive: every step is a stage; none: no stage, nothing to join", () => {
    expect(foldSteps([stage, stage, stage])).toEqual({ cuts: [0, 1, 2], endOf: [0, 1, 2], folds: [] });
    expect(foldSteps([fold("typo fix"), fold("progress only")])).toEqual({
      cuts: [],
      endOf: [null, null],
      folds: [
        { step: 0, rule: "typo fix", into: null },
        { step: 1, rule: "progress only", into: null },
      ],
    });
  });
});
