import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testIdFile, testIdPathProblem } from "../../src/dataset/test-id-paths.js";
import { testFileMatcher } from "../../src/dataset/file-rules.js";
import { cli } from "../helpers/cli.js";
import { layoutTen, tempDir, writeSyntheticDataset } from "../helpers/synthetic-dataset.js";

const isTest = testFileMatcher({});

describe("test id paths", () => {
  it("take the file part of pytest node ids and file ids; other notations name no file", () => {
    expect(testIdFile("tests/test_x.py::TestC::test_y[a::b]")).toBe("tests/test_x.py");
    expect(testIdFile("tests/test_x.py")).toBe("tests/test_x.py");
    expect(testIdFile("test_x (module.Class)")).toBeNull();
    expect(testIdFile("TestFoo")).toBeNull();
  });

  it("accept a relative test file inside the repository and refuse anything else", () => {
    expect(testIdPathProblem("tests/test_x.py::test_a", isTest)).toBeNull();
    expect(testIdPathProblem("pkg/tests/helpers.py::test_a", isTest)).toBeNull();
    expect(testIdPathProblem("test_requests.py::test_a", isTest)).toBeNull();
    expect(testIdPathProblem("test_x (module.Class)", isTest)).toBeNull();
    const cases: Array<[string, RegExp]> = [
      ["../../../etc/passwd::test_x", /inside the repository \(no "\.\." segments\)/],
      ["tests/../../x/test_a.py::t", /inside the repository/],
      ["/etc/tests/test_a.py::t", /relative to the repository/],
      ["~/tests/test_a.py::t", /relative to the repository/],
      ["C:/tests/test_a.py::t", /relative to the repository/],
      ["tests\\test_a.py::t", /must use "\/"/],
      ["tests/./test_a.py::t", /written plainly/],
      ["tests//test_a.py::t", /written plainly/],
      ["::test_a", /no file before "::"/],
      ["src/calc.py::test_a", /src\/calc\.py is not a test file under the repository's test rules/],
    ];
    for (const [id, why] of cases) expect(testIdPathProblem(id, isTest), id).toMatch(why);
  });

  it("follow the repository's own test rules", () => {
    const custom = testFileMatcher({ tests: ["checks/**/*.py"] });
    expect(testIdPathProblem("checks/unit/basic.py::test_a", custom)).toBeNull();
    expect(testIdPathProblem("tests/test_a.py::test_a", custom)).toMatch(/not a test file/);
  });

  it("tasks validate reports each bad test id of a task on one line and exits 1", () => {
    const dir = writeSyntheticDataset(tempDir(), layoutTen.files, layoutTen.tasks.slice(0, 2));
    const file = join(dir, "tasks", "t01", "task.json");
    const task = JSON.parse(readFileSync(file, "utf8")) as { verifier: { pass_to_pass: string[]; fail_to_pass: string[] } };
    task.verifier.pass_to_pass = ["../../../etc/passwd::test_x", "/abs/tests/test_a.py::t", ...task.verifier.pass_to_pass];
    task.verifier.fail_to_pass = [...task.verifier.fail_to_pass, "README.md::test_x"];
    writeFileSync(file, JSON.stringify(task));
    const r = cli(["tasks", "validate", dir], { env: { SWITCH_SWE_CACHE: join(tempDir(), "cache") } });
    expect(r.code).toBe(1);
    const lines = r.stdout
      .trim()
      .split("\n")
      .filter((l) => l.startsWith(file));
    expect(lines).toEqual([
      // The id added to F2P is also asked for by no request (the alignment rule of docs/mining.md).
      `${file}: verifier.fail_to_pass: README.md::test_x is mapped to no stage (list it in the tests of the request that asks for it)`,
      `${file}: verifier.fail_to_pass: README.md::test_x: README.md is not a test file under the repository's test rules (repos.<name>.tests in dataset.json)`,
      `${file}: verifier.pass_to_pass: ../../../etc/passwd::test_x: the test file must be inside the repository (no ".." segments)`,
      `${file}: verifier.pass_to_pass: /abs/tests/test_a.py::t: the test file must be a path relative to the repository`,
    ]);
  });
});
