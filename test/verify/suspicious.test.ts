import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { splitPatch } from "../../src/core/patch-blocks.js";
import { suspiciousReasons } from "../../src/verify/suspicious.js";

const patch = (file: string, lines: string[]) =>
  [
    `diff --git a/${file} b/${file}`,
    `--- a/${file}`,
    `+++ b/${file}`,
    `@@ -1,1 +1,${lines.length + 1} @@`,
    " import sys",
    ...lines.map((l) => `+${l}`),
    "",
  ].join("\n");

describe("suspicious artifacts", () => {
  const copy = "sys.modules['htmlparser'] = htmlparser";
  it("names each sign once, with the first file that shows it", () => {
    const blocks = splitPatch(patch("pkg/a.py", [copy, "import atexit"]) + patch("pkg/b.py", ["sys.modules.pop('x')"]));
    expect(suspiciousReasons(blocks)).toEqual([
      "the artifact changes the module table (sys.modules) (pkg/a.py)",
      "the artifact registers exit handlers (atexit) (pkg/a.py)",
    ]);
  });

  it("does not count a line the reference adds to the same file, and still counts it elsewhere or changed", () => {
    const reference = splitPatch(patch("pkg/a.py", [copy]));
    expect(suspiciousReasons(splitPatch(patch("pkg/a.py", [`    ${copy}`])), reference)).toEqual([]);
    expect(suspiciousReasons(splitPatch(patch("pkg/other.py", [copy])), reference)).toEqual([
      "the artifact changes the module table (sys.modules) (pkg/other.py)",
    ]);
    expect(suspiciousReasons(splitPatch(patch("pkg/a.py", [copy, "sys.modules['_pytest'] = None"])), reference)).toEqual([
      "the artifact touches the test runner's modules (_pytest, pluggy) (pkg/a.py)",
      "the artifact changes the module table (sys.modules) (pkg/a.py)",
    ]);
  });
});

describe("what an artifact hides", () => {
  const reasons = (lines: string[]) => suspiciousReasons(splitPatch(patch("pkg/a.py", lines)));
  it("decodes base64 (zlib inside too) and \\x escapes, and names what the hidden code does", () => {
    const hidden = Buffer.from("import _pytest.reports\nimport atexit\n").toString("base64");
    expect(reasons([`exec(__import__('base64').b64decode('${hidden}'))`])).toEqual(
      expect.arrayContaining([
        "the artifact runs code built at run time (exec, eval, __import__, marshal) (pkg/a.py)",
        "the artifact executes data it decodes (exec/compile of base64, hex or zlib) (pkg/a.py)",
        "the artifact hides code that touches the test runner's modules (_pytest, pluggy) (pkg/a.py)",
        "the artifact hides code that registers exit handlers (atexit) (pkg/a.py)",
      ]),
    );
    const zipped = deflateSync(Buffer.from("import __main__ as launcher\nlauncher._phase[0] = 'writing-report'\n")).toString("base64");
    expect(reasons([`DATA = "${zipped}"`]).join("\n")).toMatch(/hides code that reaches the running program's own module/);
    const esc = [..."sys.modules"].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join("");
    expect(reasons([`name = "${esc}"`])).toEqual([
      "the artifact spells text in \\x escapes (pkg/a.py)",
      "the artifact hides code that changes the module table (sys.modules) (pkg/a.py)",
    ]);
    expect(reasons([`BLOB = "${"QUJD".repeat(60)}"`])).toEqual([
      "the artifact embeds an encoded blob (240 characters of base64 or hex) (pkg/a.py)",
    ]);
  });

  it("reads a binary block through the lines git wrote", () => {
    const binary = splitPatch(
      [
        "diff --git a/pkg/a.py b/pkg/a.py",
        "index 1..2 100644",
        "GIT binary patch",
        "literal 6",
        "Ncmb<WuvIYP0ssX#0Wtsp",
        "",
        "literal 6",
        "Ncmb<WuvIYR0ssXz0Wkmo",
        "",
        "",
      ].join("\n"),
    );
    expect(suspiciousReasons(binary)).toEqual([]);
    expect(suspiciousReasons(binary, [], new Map([["pkg/a.py", ["import __main__ as m"]]]))).toEqual([
      "the artifact reaches the running program's own module (__main__: the launcher's state) (pkg/a.py)",
    ]);
  });

  it("plain code and short literals are not signs", () => {
    expect(reasons(['if __name__ == "__main__":', "    main()", 'PATTERN = re.compile(r"[a-z]+")', 'KEY = "0123456789abcdef"'])).toEqual(
      [],
    );
  });
});
