import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findCandidates, within } from "../../src/mine/candidates.js";
import { changedPaths } from "../../src/manifests/derive.js";
import { gitHistory } from "../helpers/git-history.js";
import { git, tempDir } from "../verify/fixture.js";

const root = tempDir();
afterAll(() => rmSync(root, { recursive: true, force: true }));
const isSource = (p: string) => p.endsWith(".py") && !p.startsWith("tests/");
const isTest = (p: string) => p.startsWith("tests/");

describe("a merged branch that merged the main line into itself", () => {
  const { repo, init, commit } = gitHistory(root, "synced");
  init();
  commit("Initial layout", { "a.py": "0\n", "b.py": "0\n", "tests/test_a.py": "0\n" });
  git(repo, "checkout", "-qb", "feature");
  commit("First step", { "a.py": "1\n", "tests/test_a.py": "1\n" });
  git(repo, "checkout", "-q", "main");
  commit("Someone else's change", { "b.py": "1\n" });
  git(repo, "checkout", "-q", "feature");
  git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'main' into feature", "main");
  const sync = git(repo, "rev-parse", "HEAD").trim();
  const second = commit("Second step", { "a.py": "2\n", "tests/test_a.py": "2\n" });
  const third = commit("Third step", { "a.py": "3\n", "tests/test_a.py": "3\n" });
  git(repo, "checkout", "-q", "main");
  git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature");
  const merge = git(repo, "rev-parse", "HEAD").trim();
  const gitDir = join(repo, ".git");

  it("starts after the branch's last merge, so no stage carries the other history", async () => {
    const { candidates } = await findCandidates(gitDir, "HEAD", isSource, isTest, 8);
    const found = candidates.filter((c) => c.kind === "merge");
    expect(found).toEqual([
      {
        kind: "merge",
        base: sync,
        cuts: [second, third],
        provenance: `merge ${merge} of branch feature, after the branch's merge ${sync}`,
      },
    ]);
    expect(await changedPaths(gitDir, sync, second)).toEqual(["a.py", "tests/test_a.py"]);
  });

  it("is no candidate when fewer than two source steps follow that merge", async () => {
    const { candidates } = await findCandidates(gitDir, `${merge}^1..${merge}`, isSource, isTest, 8);
    expect(candidates.filter((c) => c.kind === "merge")).toHaveLength(1);
    const { repo: r2, init: i2, commit: c2 } = gitHistory(root, "late-sync");
    i2();
    c2("Initial layout", { "a.py": "0\n", "b.py": "0\n", "tests/test_a.py": "0\n" });
    git(r2, "checkout", "-qb", "feature");
    c2("First step", { "a.py": "1\n", "tests/test_a.py": "1\n" });
    c2("Second step", { "a.py": "2\n", "tests/test_a.py": "2\n" });
    git(r2, "checkout", "-q", "main");
    c2("Someone else's change", { "b.py": "1\n" });
    git(r2, "checkout", "-q", "feature");
    git(r2, "merge", "-q", "--no-ff", "-m", "Merge branch 'main' into feature", "main");
    c2("Last step", { "a.py": "3\n", "tests/test_a.py": "3\n" });
    git(r2, "checkout", "-q", "main");
    git(r2, "merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature");
    const late = await findCandidates(join(r2, ".git"), "HEAD", isSource, isTest, 8);
    expect(late.candidates.filter((c) => c.kind === "merge")).toEqual([]);
  });
});

describe("a merged branch with one step that brings tests", () => {
  it("is a candidate: a stage need not bring tests of its own; a branch that changes no test is none", async () => {
    const { repo, init, commit } = gitHistory(root, "one-tested");
    init();
    commit("Initial layout", { "a.py": "0\n", "tests/test_a.py": "0\n" });
    git(repo, "checkout", "-qb", "feature");
    const fix = commit("Fix and test", { "a.py": "1\n", "tests/test_a.py": "1\n" });
    const review = commit("Address review", { "a.py": "2\n" });
    git(repo, "checkout", "-q", "main");
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature");
    git(repo, "checkout", "-qb", "untested", "main");
    commit("Refactor", { "a.py": "3\n" });
    commit("Refactor more", { "a.py": "4\n" });
    git(repo, "checkout", "-q", "main");
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge branch 'untested'", "untested");
    const { candidates } = await findCandidates(join(repo, ".git"), "HEAD", isSource, isTest, 8);
    expect(candidates.map((c) => c.cuts)).toEqual([[fix, review]]);
  });
});

describe("--path", () => {
  it("keeps a candidate only when every source file lies under one of the directories", () => {
    expect(within([], ["a/b.py"])).toBe(true);
    expect(within(["sympy/polys"], ["sympy/polys/rings.py", "sympy/polys/domains/zz.py"])).toBe(true);
    expect(within(["sympy/polys/"], ["sympy/polys/rings.py", "sympy/core/expr.py"])).toBe(false);
    expect(within(["sympy/polys", "sympy/core"], ["sympy/polys/rings.py", "sympy/core/expr.py"])).toBe(true);
    // A directory is a path component, not a prefix of a name.
    expect(within(["sympy/poly"], ["sympy/polys/rings.py"])).toBe(false);
    expect(within(["./pkg/"], ["pkg/a.py"])).toBe(true);
    expect(within(["pkg"], [])).toBe(false);
  });
});
