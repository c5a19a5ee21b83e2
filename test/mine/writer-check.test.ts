import { describe, expect, it } from "vitest";
import { checkRewrite, diffstatOf, introducedIdentifiers } from "../../src/mine/writer-check.js";
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
    expect(checkRewrite("Please add rect_area so that rectangles work too.", { patch, given })).toBe("it names an identifier that the change introduces: rect_area");
    expect(checkRewrite("Add heightScale and LIMIT_2 for the rectangle computation.", { patch, given })).toBe("it names identifiers that the change introduces: LIMIT_2, heightScale");
    expect(checkRewrite("Rectangles: it should do return width * heightScale(height) somewhere.", { patch, given })).toMatch(/^it names an identifier that the change introduces: heightScale$/);
    expect(checkRewrite("The area should be computed like `def rect_area(width, height):` please", { patch, given: [...given, "rect_area"] })).toBe(
      'it copies a line of the change\'s code: "def rect_area(width, height):"',
    );
    expect(checkRewrite("Please add rectangles:\n```\nx\n```", { patch, given })).toBe("it contains a code block");
    expect(checkRewrite("Rectangles.", { patch, given })).toBe("too short (11 characters, at least 20)");
    expect(checkRewrite("a".repeat(1501), { patch, given })).toBe("too long (1501 characters, at most 1500)");
  });

  it("allows a name the writer was given (in the description or an earlier request)", () => {
    expect(checkRewrite("Please add rect_area, as the commit message says, for rectangles.", { patch, given: [...given, "Add rect_area"] })).toBeNull();
    // A name only inside a longer given word is not given.
    expect(checkRewrite("Please add rect_area for rectangles of any size.", { patch, given: ["my_rect_area_helper"] })).toBe(
      "it names an identifier that the change introduces: rect_area",
    );
  });
});

describe("the writer's prompt and reply", () => {
  it("shows the description, the earlier requests and the diffstat, and the reason of a refusal", () => {
    const p = renderWriterPrompt({ taskProvenance: "Merge branch 'rect'", stage: 2, stages: 3, description: "Add rect", earlier: ["First\nline"], diffstat: ["a.py | +1 -0"] }, "too short");
    expect(p).toContain("Task: Merge branch 'rect'\nStep 2 of 3.");
    expect(p).toContain("1. First line");
    expect(p).toContain("<<<\nAdd rect\n>>>");
    expect(p).toContain("  a.py | +1 -0");
    expect(p.endsWith("Your previous answer was refused: too short. Write it again without that.")).toBe(true);
  });

  it("reads {\"request\": ...}, also in a json fence, and says what is wrong otherwise", () => {
    expect(parseWriterReply('{"request": " Please do it. "}')).toEqual({ ok: true, request: "Please do it." });
    expect(parseWriterReply('```json\n{"request": "x"}\n```')).toEqual({ ok: true, request: "x" });
    const bad = parseWriterReply("Sure! Here is the request.");
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.detail).toMatch(/^not JSON \(.*\): "Sure! Here is the request\."$/);
    expect(parseWriterReply('{"request": "x", "notes": 1}')).toEqual({ ok: true, request: "x" });
    expect(parseWriterReply('{"text": "x"}')).toEqual({ ok: false, detail: 'expected {"request": "..."}, got "{\\"text\\": \\"x\\"}"' });
  });
});
