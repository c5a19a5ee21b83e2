import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseJunitReport } from "../../src/testbed/junit-xml.js";
import { caseKey, caseNodeId, collectionErrorScope, mangleNodeId } from "../../src/testbed/pytest-ids.js";
import { parsePytestSummary } from "../../src/testbed/pytest-output.js";
import { buildTestCommand, shellQuote } from "../../src/testbed/test-run.js";
import { tempDir } from "../verify/fixture.js";

const checkout = tempDir();
afterAll(() => rmSync(checkout, { recursive: true, force: true }));
mkdirSync(join(checkout, "tests", "sub"), { recursive: true });
writeFileSync(join(checkout, "tests", "sub", "test_x.py"), "");

describe("the JUnit reader", () => {
  it("reads outcomes, entities and ignores testcase-looking text in CDATA, comments and output", () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?>
<!-- <testcase classname="forged" name="x"/> -->
<testsuites><testsuite name="pytest" tests="4">
  <testcase classname="tests.sub.test_x.TestC" name="test_a[a&amp;b-&lt;1&gt;]" time="0.1"/>
  <testcase classname="tests.sub.test_x" name="test_b"><failure message="assert 0">trace</failure></testcase>
  <testcase classname="tests.sub.test_x" name="test_c"><skipped type="pytest.skip" message="no"/></testcase>
  <testcase classname="tests.sub.test_x" name="test_d"><system-out>&lt;testcase classname="tests.sub.test_x" name="test_b"/&gt;<![CDATA[<testcase name="evil"/>]]></system-out><error message="teardown"/></testcase>
  <testcase classname="" name="tests.sub.test_y"><error message="collection failure"/></testcase>
</testsuite></testsuites>`;
    const cases = parseJunitReport(xml);
    expect(cases.map((c) => [c.classname, c.name, c.outcome])).toEqual([
      ["tests.sub.test_x.TestC", "test_a[a&b-<1>]", "passed"],
      ["tests.sub.test_x", "test_b", "failed"],
      ["tests.sub.test_x", "test_c", "skipped"],
      ["tests.sub.test_x", "test_d", "error"],
      ["", "tests.sub.test_y", "error"],
    ]);
    expect(caseNodeId(cases[0]!, checkout)).toBe("tests/sub/test_x.py::TestC::test_a[a&b-<1>]");
    // A declared node id finds its JUnit case by pytest's mangling, and only that case.
    expect(mangleNodeId("tests/sub/test_x.py::TestC::test_a[a&b-<1>]")).toBe(caseKey(cases[0]!));
    expect(mangleNodeId("tests/sub/test_x.py::test_b")).toBe(caseKey(cases[1]!));
    expect(mangleNodeId("tests/sub/test_x.py::TestC::test_b")).not.toBe(caseKey(cases[1]!));
    expect(collectionErrorScope(cases[4]!, checkout)).toBe("tests/sub/test_y.py");
  });

  it("throws on a truncated or foreign document", () => {
    expect(() => parseJunitReport("<testsuites><testsuite><testcase name='a'>")).toThrow(/never closed/);
    expect(() => parseJunitReport("<testsuites></testsuite>")).toThrow(/does not close/);
    expect(() => parseJunitReport("<html></html>")).toThrow(/not a JUnit report/);
    expect(() => parseJunitReport("<testsuites a='&bogus;'></testsuites>")).toThrow(/unknown entity/);
    expect(() => parseJunitReport("")).toThrow(/no root element/);
  });
});

describe("the -rA summary reader", () => {
  it("reads only the last summary block", () => {
    const out = [
      "PASSED tests/test_a.py::test_forged_before",
      "=================== short test summary info ===================",
      "PASSED tests/test_a.py::test_ok",
      "FAILED tests/test_a.py::test_bad[1 - 2] - AssertionError: x - y",
      "ERROR tests/test_b.py - ImportError",
      "SKIPPED [1] tests/test_a.py:3: no reason",
      "XFAIL tests/test_a.py::test_xf - reason",
      "========== 1 failed, 1 passed in 0.1s ==========",
      "PASSED tests/test_a.py::test_after",
    ].join("\n");
    expect(parsePytestSummary(out)).toEqual([
      { nodeId: "tests/test_a.py::test_ok", outcome: "passed" },
      { nodeId: "tests/test_a.py::test_bad[1 - 2]", outcome: "failed" },
      { nodeId: "tests/test_b.py", outcome: "error" },
      { nodeId: "tests/test_a.py::test_xf", outcome: "skipped" },
    ]);
    expect(parsePytestSummary("no summary here")).toBeNull();
  });
});

describe("the test command", () => {
  it("fills {tests} with shell-quoted ids and {junit} with the report path", () => {
    expect(shellQuote("a/b.py::t[x y]")).toBe("'a/b.py::t[x y]'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(buildTestCommand("pytest --junitxml={junit} {tests}", ["t.py::a", "t.py::b[$(x)]"], "/tmp/r.xml")).toBe(
      "pytest --junitxml=/tmp/r.xml t.py::a 't.py::b[$(x)]'",
    );
    expect(buildTestCommand("pytest {tests}", null, "/r")).toBe("pytest ");
  });
});
