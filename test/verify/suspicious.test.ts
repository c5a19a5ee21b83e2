import { describe, expect, it } from "vitest";
import { splitPatch } from "../../src/verify/split-patch.js";
import { suspiciousReasons } from "../../src/verify/suspicious.js";

const patch = (file: string, lines: string[]) =>
  [`diff --git a/${file} b/${file}`, `--- a/${file}`, `+++ b/${file}`, `@@ -1,1 +1,${lines.length + 1} @@`, " import sys", ...lines.map((l) => `+${l}`), ""].join("\n");

describe("suspicious artifacts", () => {
  const copy = "sys.modules['htmlparser'] = htmlparser";
  it("names each sign once, with the first file that shows it", () => {
    const blocks = splitPatch(patch("pkg/a.py", [copy, "import atexit"]) + patch("pkg/b.py", ["sys.modules.pop('x')"]));
    expect(suspiciousReasons(blocks)).toEqual(["the artifact changes the module table (sys.modules) (pkg/a.py)", "the artifact registers exit handlers (atexit) (pkg/a.py)"]);
  });

  it("does not count a line the reference adds to the same file, and still counts it elsewhere or changed", () => {
    const reference = splitPatch(patch("pkg/a.py", [copy]));
    expect(suspiciousReasons(splitPatch(patch("pkg/a.py", [`    ${copy}`])), reference)).toEqual([]);
    expect(suspiciousReasons(splitPatch(patch("pkg/other.py", [copy])), reference)).toEqual(["the artifact changes the module table (sys.modules) (pkg/other.py)"]);
    expect(suspiciousReasons(splitPatch(patch("pkg/a.py", [copy, "sys.modules['_pytest'] = None"])), reference)).toEqual([
      "the artifact touches the test runner's modules (_pytest, pluggy) (pkg/a.py)",
      "the artifact changes the module table (sys.modules) (pkg/a.py)",
    ]);
  });
});
