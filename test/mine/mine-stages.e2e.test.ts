import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { git, tempDir } from "../verify/fixture.js";

const root = tempDir("switch-swe-mine-stages-");
const env = { SWITCH_SWE_CACHE: join(root, "cache") };
const { repo, init, commit } = gitHistory(root, "shapes");
const out = join(root, "mined");
const c: Record<string, string> = {};

const area = (body: string) => ({ "shapes/geometry/area.py": body });
const v1 = "def square(a):\n    return a * a\n\n\ndef perimeter(a):\n    return 4 * a\n";
const v3 =
  "def square(a):\n    return a * a\n\n\ndef perimeter(a):\n    if a < 0:\n        raise ValueError('negative side')\n    return 4 * a\n";
const v4 = v3.replace("a * a", "a*a").replace("4 * a", "4*a");
const v5 = `${v4}\n\ndef rect(a, b):\n    return a*b\n`;

/**
 * One merged branch of seven steps, as review rounds go: a function and its test; documentation;
 * a source change with no test of its own; a reformatting; a second function whose test joins an
 * old test module (so that module's old test cannot be imported before it); a change and its revert.
 * A second branch has one substantive step and a whitespace one. A test module of the first step
 * imports a package nobody installed.
 */
beforeAll(() => {
  init();
  commit("Initial layout", {
    "shapes/__init__.py": "",
    ...area("def square(a):\n    return a * a\n"),
    "tests/test_area.py": "from shapes.geometry.area import square\n\n\ndef test_square():\n    assert square(3) == 9\n",
  });
  git(repo, "checkout", "-q", "-b", "perimeter");
  c.s1 = commit("Add the perimeter of a square", {
    ...area(v1),
    "tests/test_perimeter.py": "from shapes.geometry.area import perimeter\n\n\ndef test_perimeter():\n    assert perimeter(2) == 8\n",
    "tests/test_optional.py": "import not_installed_anywhere\n\n\ndef test_extension():\n    assert not_installed_anywhere\n",
  });
  c.s2 = commit("Document the perimeter", { "README.md": "perimeter(a) is 4 a\n" });
  c.s3 = commit("Refuse a negative side", area(v3));
  c.s4 = commit("Format", area(v4));
  c.s5 = commit("Add the area of a rectangle", {
    ...area(v5),
    "tests/test_area.py":
      "from shapes.geometry.area import rect, square\n\n\ndef test_square():\n    assert square(3) == 9\n\n\ndef test_rect():\n    assert rect(2, 3) == 6\n",
  });
  c.s6 = commit("Try a power", area(v5.replace("a*a", "a**2")));
  c.s7 = commit('Revert "Try a power"', area(v5));
  git(repo, "checkout", "-q", "main");
  git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'perimeter'", "perimeter");
  git(repo, "checkout", "-q", "-b", "tidy");
  commit("Add the diagonal", {
    ...area(`${v5}\n\ndef diagonal(a):\n    return a * 2 ** 0.5\n`),
    "tests/test_diagonal.py":
      "from shapes.geometry.area import diagonal\n\n\ndef test_diagonal():\n    assert round(diagonal(1), 3) == 1.414\n",
  });
  commit("Whitespace", area(`${v5}\n\ndef diagonal(a):\n    return a*2**0.5\n`));
  git(repo, "checkout", "-q", "main");
  git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'tidy'", "tidy");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("tasks mine: stages are the substantive steps", () => {
  it("mines 3 stages from 7 steps, folds and reports the others, keeps an old unchanged test out of F2P", { timeout: 600_000 }, () => {
    const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "2", "--max-stages", "8"], { env });
    expect(r.stdout).toMatch(/2 candidate\(s\): 1 mined, 1 rejected \(1 fewer than two substantive stages\); /);
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, "mine-report.json"), "utf8"));
    const [mined] = report.mined;
    const short = (s: string) => c[s]!.slice(0, 12);
    expect(mined.stages).toBe(3);
    expect(mined.folded).toEqual([
      { step: short("s2"), rule: "documentation only", into: short("s3") },
      { step: short("s4"), rule: "formatting only", into: short("s7") },
      { step: short("s6"), rule: "progress only", into: short("s7") },
      { step: short("s7"), rule: "revert of step 6", into: short("s7") },
    ]);
    // The middle stage changes behaviour with no test of its own: a stage all the same.
    expect(mined.stages_without_f2p).toEqual([2]);
    expect(mined.regression_tests).toEqual(["tests/test_area.py::test_square"]);
    expect(mined.failing_modules).toEqual([
      {
        module: "tests/test_optional.py",
        reason: expect.stringMatching(/^cannot be collected in any state \(pytest: .*not_installed_anywhere/),
      },
    ]);
    // The pre-checks rejected the second branch on its diffs: no test ran.
    expect(report.rejected).toEqual([
      expect.objectContaining({
        reason: "fewer than two substantive stages",
        test_runs: 0,
        folded: [expect.objectContaining({ rule: "formatting only" })],
      }),
    ]);

    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    const [task] = manifest.tasks;
    expect(task.stages.map((s: { cut: string }) => s.cut)).toEqual([c.s1, c.s3, c.s7]);
    // Texts derived from commit messages are drafts until written for the dataset.
    expect(task.stages.map((s: { draft?: boolean }) => s.draft)).toEqual([true, true, true]);
    expect(task.stages.map((s: { tests: string[] }) => s.tests)).toEqual([
      ["tests/test_perimeter.py::test_perimeter"],
      [],
      ["tests/test_area.py::test_rect"],
    ]);
    expect(task.verifier.fail_to_pass).toEqual(["tests/test_perimeter.py::test_perimeter", "tests/test_area.py::test_rect"]);
    // It fails at the base (its module cannot be imported there): no P2P either, which qualify would refuse.
    expect(task.verifier.pass_to_pass).not.toContain("tests/test_area.py::test_square");
    const json = JSON.parse(readFileSync(join(out, "tasks", task.id, "task.json"), "utf8"));
    expect(json.requests[1].text).toBe("Document the perimeter\n\nRefuse a negative side");
    expect(json.requests[1].tests).toBeUndefined();
    expect(cli(["tasks", "validate", out], { env }).code).toBe(0);
    // The old test is in neither list, so qualification has nothing to refuse.
    const q = cli(["tasks", "qualify", out, "--runs", "1"], { env });
    expect(q.stdout).toContain("1 of 1 task(s) qualify");
  });

  it("resumes a report written under the retired rule, and judges its rejections of that kind again", () => {
    const file = join(out, "mine-report.json");
    const report = JSON.parse(readFileSync(file, "utf8"));
    report.rejected[0].reason = "fewer than two stages with tests";
    report.rejected_by_reason = { "fewer than two stages with tests": 1 };
    writeJson(file, report);
    const again = cli(["tasks", "mine", repo, "--out", out, "--runs", "2", "--max-stages", "8"], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(
      '1 mined and 0 rejected before, 1 left (1 rejected as "fewer than two stages with tests", a rule since retired, are judged again)',
    );
    expect(JSON.parse(readFileSync(file, "utf8")).rejected_by_reason).toEqual({ "fewer than two substantive stages": 1 });
  });
});

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, JSON.stringify(value));
}
