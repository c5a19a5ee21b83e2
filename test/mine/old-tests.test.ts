import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { functionRanges, patchTouches, unchangedIds } from "../../src/mine/old-tests.js";

const before = `import pytest
from pkg import a


def test_a():
    assert a() == 1


class TestB:
    @pytest.mark.parametrize("x", [1, 2])
    def test_b(self, x):
        assert x


def test_c():
    assert True
`;

/** tests.patch: the import line changes, test_c's body changes, test_new is added; test_a and TestB::test_b are untouched. */
const after =
  before.replace("from pkg import a", "from pkg import a, b").replace("    assert True\n", "    assert b()\n") +
  "\n\ndef test_new():\n    assert b() == 2\n";

function gitDiff(path: string, a: string | null, b: string): string {
  const dir = spawnSync("mktemp", ["-d"], { encoding: "utf8" }).stdout.trim();
  spawnSync("sh", ["-c", `mkdir -p "${dir}/a" "${dir}/b"`]);
  if (a !== null) spawnSync("sh", ["-c", `cat > "${dir}/a/f"`], { input: a });
  spawnSync("sh", ["-c", `cat > "${dir}/b/f"`], { input: b });
  const r = spawnSync("git", ["diff", "--no-index", "--no-color", a === null ? "/dev/null" : `${dir}/a/f`, `${dir}/b/f`], {
    encoding: "utf8",
  });
  spawnSync("rm", ["-rf", dir]);
  return r.stdout.replaceAll(`${dir.slice(1)}/a/f`, path).replaceAll(`${dir.slice(1)}/b/f`, path);
}

describe("old unchanged tests", () => {
  it("finds the tests whose function (decorators included) tests.patch leaves unchanged, by python's ast", async () => {
    const patch =
      gitDiff("tests/test_x.py", before, after) + gitDiff("tests/test_new_module.py", null, "def test_fresh():\n    assert 1\n");
    const touches = patchTouches(patch);
    expect(touches.get("tests/test_new_module.py")?.created).toBe(true);
    const ranges = await functionRanges(
      "python3",
      new Map([
        ["tests/test_x.py", after],
        ["tests/test_new_module.py", "def test_fresh():\n    assert 1\n"],
        ["tests/test_broken.py", "def test_(:\n"],
      ]),
    );
    expect(ranges.get("tests/test_x.py")).toMatchObject({
      test_a: [5, 6],
      "TestB::test_b": [10, 12],
      test_c: [15, 16],
      test_new: [19, 20],
    });
    expect(ranges.get("tests/test_broken.py")).toBeNull();
    const ids = [
      "tests/test_x.py::test_a",
      "tests/test_x.py::TestB::test_b[1]",
      "tests/test_x.py::test_c",
      "tests/test_x.py::test_new",
      "tests/test_new_module.py::test_fresh",
      "tests/test_broken.py::test_",
      "tests/test_x.py::test_inherited",
      "test_a (tests.test_x.TestB)",
    ];
    expect(unchangedIds(ids, touches, ranges)).toEqual(["tests/test_x.py::test_a", "tests/test_x.py::TestB::test_b[1]"]);
  });

  it("a removed line inside a function, or a changed decorator, changes it", async () => {
    const changed = before
      .replace('    @pytest.mark.parametrize("x", [1, 2])\n', '    @pytest.mark.parametrize("x", [1, 2, 3])\n')
      .replace("def test_a():\n    assert a() == 1\n", "def test_a():\n    pass\n");
    const touches = patchTouches(gitDiff("t.py", before, changed));
    const ranges = await functionRanges("python3", new Map([["t.py", changed]]));
    expect(unchangedIds(["t.py::test_a", "t.py::TestB::test_b[2]", "t.py::test_c"], touches, ranges)).toEqual(["t.py::test_c"]);
  });
});
