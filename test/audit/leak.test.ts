import { describe, expect, it } from "vitest";
import { leakingSentences, sentencesOf } from "../../src/audit/leak.js";
import { commitMarks } from "../../src/audit/commit-text.js";

describe("leak: sentences that prescribe how without an observable input and result", () => {
  // The paraphrases reading found in shipped texts (issue 43).
  it.each([
    ["Merge the two subtables, but only combine when that saving is positive.", ["condition", "comparison"]],
    ["When several ranges could hold the glyph, prefer the narrowest.", ["choice"]],
    ["The new baseline is the ascent minus the top of the bounding box, rounded.", ["arithmetic"]],
    ["Keep going until no more lines change, looping over the segments.", ["loop"]],
    ["Use a tolerance of 0.5 units.", ["constant"]],
  ])("flags %j", (text, whats) => {
    const [found] = leakingSentences(text);
    expect(found?.sentence).toBe(text);
    for (const w of whats) expect(found!.cues.some((c) => c.startsWith(`${w} `))).toBe(true);
  });

  // Behavioural requests: what the user does and sees, even when they mention a condition or a number.
  it.each([
    "Calling `parse('1,2')` should return [1, 2] instead of raising.",
    "If the offset is negative, `seek(-1)` should raise a ValueError.",
    "The progress bar should show the percentage rounded to one decimal, e.g. 42.5%.",
    "Accept positive and negative integers in the range option.",
    "Add an option to sort the listing by size.",
    "Support iterating over the rows of a table.",
    "Report an error when the file is empty.",
  ])("leaves %j alone", (text) => {
    expect(leakingSentences(text)).toEqual([]);
  });

  it("reads sentences one by one: only the prescribing one is reported, abbreviations stay whole", () => {
    expect(sentencesOf("Pad the cells, e.g. with spaces. Then stop.\nDone")).toEqual([
      "Pad the cells, e.g. with spaces.",
      "Then stop.",
      "Done",
    ]);
    const found = leakingSentences("Tables should line up. Pick the widest column as the anchor.");
    expect(found.map((f) => f.sentence)).toEqual(["Pick the widest column as the anchor."]);
  });
});

describe("commit-text: marks of a commit message", () => {
  it("finds trailers, addresses, test remarks, later-stage references, pull-request numbers and identifier typo fixes", () => {
    const text = [
      "fix typo in get_apparent_index (#812)",
      "",
      "Add tests; the next step handles the rest.",
      "",
      "Co-authored-by: Jane Doe <jane@example.org>",
      "Signed-off-by: Bob <bob@example.com>",
    ].join("\n");
    const marks = Object.fromEntries(commitMarks(text).map((m) => [m.what, m.evidence]));
    expect(marks["trailer lines"]).toEqual(["Co-authored-by: Jane Doe <jane@example.org>", "Signed-off-by: Bob <bob@example.com>"]);
    expect(marks["e-mail addresses"]).toEqual(["jane@example.org", "bob@example.com"]);
    expect(marks["merge lines or pull-request numbers"]).toEqual(["(#812)"]);
    expect(marks["a typo fix in an identifier (a rename the text dictates)"]).toEqual(["fix typo in get_apparent_index"]);
    expect(marks["remarks about tests"]).toContain("Add tests");
    expect(marks["references to later stages"]).toEqual(["the next step"]);
  });

  it("finds nothing in a user's request, and a typo fixed in prose is no rename", () => {
    expect(commitMarks("Tables with a title should centre it over the columns; fix typo in the help text too.")).toEqual([]);
    // A variable named test (ipython-64484bb424's text) is no remark about tests.
    expect(commitMarks("import ast as test must not add test to locals or globals.")).toEqual([]);
  });
});
