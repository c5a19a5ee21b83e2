import { describe, expect, it } from "vitest";
import { checkRewrite, diffstatOf, introducedIdentifiers, privateNamesIn } from "../../src/mine/writer-check.js";
import { parseWriterReply, renderWriterPrompt } from "../../src/mine/writer-prompt.js";

const patch = [
  "diff --git a/shapes/area.py b/shapes/area.py",
  "index 1111111..2222222 100644",
  "--- a/shapes/area.py",
  "+++ b/shapes/area.py",
  "@@ -1,2 +1,6 @@",
  " def square_area(a):",
  "     return a * a",
  "+",
  "+",
  "+def rect_area(width, height):",
  "+    return width * heightScale(height)",
  "diff --git a/shapes/new_mod.py b/shapes/new_mod.py",
  "new file mode 100644",
  "index 0000000..3333333",
  "--- /dev/null",
  "+++ b/shapes/new_mod.py",
  "@@ -0,0 +1 @@",
  "+LIMIT_2 = 3",
  "",
].join("\n");

const given = ["Add the area of a rectangle", "shapes/area.py | +4 -0", "shapes/new_mod.py | +1 -0 (new file)"];

describe("the writer's check", () => {
  it("finds the identifiers a patch introduces that read as code, not the ones it keeps or plain words", () => {
    expect(introducedIdentifiers(patch)).toEqual(["LIMIT_2", "heightScale", "rect_area"]);
  });

  it("lists file names and line counts, never code", () => {
    expect(diffstatOf(patch)).toEqual(["shapes/area.py | +4 -0", "shapes/new_mod.py | +1 -0 (new file)"]);
    expect(diffstatOf("")).toEqual([]);
  });

  it("passes a request in a user's words", () => {
    expect(checkRewrite("Please let me compute the area of a rectangle as well, from its width and height.", { patch, given })).toBeNull();
  });

  it("refuses an introduced identifier, copied code, a code block, and texts too short or too long", () => {
    expect(checkRewrite("Please add rect_area so that rectangles work too.", { patch, given })).toBe(
      "it names an identifier that the change introduces: rect_area",
    );
    expect(checkRewrite("Add heightScale and LIMIT_2 for the rectangle computation.", { patch, given })).toBe(
      "it names identifiers that the change introduces: LIMIT_2, heightScale",
    );
    expect(checkRewrite("Rectangles: it should do return width * heightScale(height) somewhere.", { patch, given })).toMatch(
      /^it names an identifier that the change introduces: heightScale$/,
    );
    expect(
      checkRewrite("The area should be computed like `def rect_area(width, height):` please", { patch, given: [...given, "rect_area"] }),
    ).toBe('it copies a line of the change\'s code: "def rect_area(width, height):"');
    expect(checkRewrite("Please add rectangles:\n```\nx\n```", { patch, given })).toBe("it contains a code block");
    expect(checkRewrite("Rectangles.", { patch, given })).toBe("too short (11 characters, at least 20)");
    expect(checkRewrite("a".repeat(1501), { patch, given })).toBe("too long (1501 characters, at most 1500)");
  });

  it("allows a name the writer was given (in the description or an earlier request)", () => {
    expect(
      checkRewrite("Please add rect_area, as the commit message says, for rectangles.", { patch, given: [...given, "Add rect_area"] }),
    ).toBeNull();
    // A name only inside a longer given word is not given.
    expect(checkRewrite("Please add rect_area for rectangles of any size.", { patch, given: ["my_rect_area_helper"] })).toBe(
      "it names an identifier that the change introduces: rect_area",
    );
  });
});

const privatePatch = [
  "diff --git a/shapes/area.py b/shapes/area.py",
  "--- a/shapes/area.py",
  "+++ b/shapes/area.py",
  "@@ -1,3 +1,3 @@",
  " def _scaled(a):",
  "-    return a * _FACTOR",
  "+    return a * _factor()",
  "     # keep __init__ public",
  "",
].join("\n");

describe("the writer's check: what gives the fix away besides new identifiers", () => {
  it("reads private names from code, but not dunder names or names inside words", () => {
    expect(
      privateNamesIn(["def _scaled(a):\n  self.__cache = x.__init__() + _ + __x__ + my_var + _2x + _c", "class _Node: _Node._walk"]),
    ).toEqual(["_Node", "__cache", "_scaled", "_walk"]);
  });

  it("refuses a private name of the patch or of the touched files, even one the description names; a dunder name is fine", () => {
    const g = [...given, "Use _scaled everywhere"];
    expect(checkRewrite("Please make the area scale with the factor by calling _scaled.", { patch: privatePatch, given: g })).toBe(
      "private names: it names a private name of the code: _scaled",
    );
    expect(checkRewrite("Please let the factor (_FACTOR today) change at run time.", { patch: privatePatch, given })).toBe(
      "private names: it names a private name of the code: _FACTOR",
    );
    expect(
      checkRewrite("Please fix the helper Area._cache and Area._norm for rectangles.", {
        patch,
        given,
        privateNames: ["_cache", "_norm", "_unused"],
      }),
    ).toBe("private names: it names private names of the code: _cache, _norm");
    expect(
      checkRewrite("Calling __init__ twice should not reset the computed area of a shape.", { patch: privatePatch, given }),
    ).toBeNull();
    // Markdown emphasis is no name: `_scaled_` is not `_scaled`.
    expect(checkRewrite("The area must be _scaled_ by the configured factor, every time.", { patch: privatePatch, given })).toBeNull();
  });

  it("refuses statements about the tests and names of tests, quoting them", () => {
    const why = (t: string) => checkRewrite(t, { patch, given });
    expect(why("Rectangles need an area; the tests check that 2 x 3 gives 6.")).toBe(
      'statements about tests: it says what the tests do or names a test: "the tests check"',
    );
    expect(why("Please add rectangle areas so that a hidden test passes.")).toBe(
      'statements about tests: it says what the tests do or names a test: "hidden test passes"',
    );
    expect(why("Please add rectangle areas, as the test suite expects them.")).toBe(
      'statements about tests: it says what the tests do or names a test: "test suite"',
    );
    expect(why("Please add rectangle areas so that test_rect_area and testRectArea pass.")).toBe(
      'statements about tests: it says what the tests do or names a test: "test_rect_area", "testRectArea"',
    );
    expect(why("Please add rectangle areas; TestShapes covers them.")).toBe(
      'statements about tests: it says what the tests do or names a test: "TestShapes"',
    );
    expect(why("Please add rectangle areas. The new tests\nexpect 6 for 2 by 3.")).toBe(
      'statements about tests: it says what the tests do or names a test: "The new tests expect"',
    );
    expect(why("Please add rectangle areas; our own tests will call area() with floats.")).toBe(
      'statements about tests: it says what the tests do or names a test: "our own tests will call"',
    );
    expect(why("Please add rectangle areas (the updated tests already pass floats).")).toBe(
      'statements about tests: it says what the tests do or names a test: "the updated tests already pass"',
    );
    // Tests as a word of the domain are fine, and so is asking for tests.
    expect(why("Please add a rectangle area and a primality test for its sides, with tests.")).toBeNull();
  });

  it("refuses references to later stages, quoting them", () => {
    const why = (t: string) => checkRewrite(t, { patch, given });
    expect(why("Please add rectangle areas; triangles come in the next step.")).toBe(
      'later stages: it refers to a later stage: "in the next step"',
    );
    expect(why("Please add rectangle areas. Later we will add triangles.")).toBe(
      'later stages: it refers to a later stage: "Later we will"',
    );
    expect(why("Please add rectangle areas; step 3 adds circles.")).toBe('later stages: it refers to a later stage: "step 3"');
    expect(why("Please add rectangle areas; the next request is about circles.")).toBe(
      'later stages: it refers to a later stage: "the next request"',
    );
    expect(why("Please add rectangle areas; I'll next ask for circles.")).toBe(`later stages: it refers to a later stage: "I'll next"`);
    expect(why("Please add rectangle areas; squares keep their own code for now.")).toBe(
      'later stages: it refers to a later stage: "for now"',
    );
    expect(why("Please add rectangle areas; the unit argument gets its meaning in a follow-up.")).toBe(
      'later stages: it refers to a later stage: "in a follow-up"',
    );
    // A follow-up on earlier work, "next" and "step" as plain words are fine.
    expect(why("Follow-up on the rectangle areas: next to them, please add squares.")).toBeNull();
    expect(why("Please add rectangle areas, rounding to the next integer with a step of one.")).toBeNull();
  });
});

describe("the writer's prompt and reply", () => {
  it("shows the description, the earlier requests and the diffstat, and the reason of a refusal", () => {
    const p = renderWriterPrompt(
      {
        taskProvenance: "Merge branch 'rect'",
        stage: 2,
        stages: 3,
        description: "Add rect",
        earlier: ["First\nline"],
        diffstat: ["a.py | +1 -0"],
      },
      "too short",
    );
    expect(p).toContain("Task: Merge branch 'rect'\nStep 2 of 3.");
    expect(p).toContain("1. First line");
    expect(p).toContain("<<<\nAdd rect\n>>>");
    expect(p).toContain("  a.py | +1 -0");
    expect(p.endsWith("Your previous answer was refused: too short. Write it again without that.")).toBe(true);
  });

  it('reads {"request": ...}, also in a json fence, and says what is wrong otherwise', () => {
    expect(parseWriterReply('{"request": " Please do it. "}')).toEqual({ ok: true, request: "Please do it." });
    expect(parseWriterReply('```json\n{"request": "x"}\n```')).toEqual({ ok: true, request: "x" });
    const bad = parseWriterReply("Sure! Here is the request.");
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.detail).toMatch(/^not JSON \(.*\): "Sure! Here is the request\."$/);
    expect(parseWriterReply('{"request": "x", "notes": 1}')).toEqual({ ok: true, request: "x" });
    expect(parseWriterReply('{"text": "x"}')).toEqual({ ok: false, detail: 'expected {"request": "..."}, got "{\\"text\\": \\"x\\"}"' });
  });
});
