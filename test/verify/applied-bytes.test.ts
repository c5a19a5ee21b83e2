import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { detachGitDir } from "../../src/testbed/bed-git.js";
import { writeHeldOut } from "../../src/testbed/held-out-files.js";
import { applyKeptBlocks } from "../../src/verify/apply-artifact.js";
import { parsePatch } from "../../src/core/patch-blocks.js";
import { suspiciousReasons } from "../../src/verify/suspicious.js";
import { changedPaths, snapshotTree, unapprovedChanges } from "../../src/verify/tree-changes.js";
import { git, tempDir, writeFiles } from "./fixture.js";

/** Issue 42: the bytes applied are the bytes checked; what is written is what was approved. */

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A checkout of one commit with its git directory moved outside (as the verifier holds it). */
function checkout(): { root: string; tree: ReturnType<typeof detachGitDir> } {
  const root = tempDir("switch-swe-applied-");
  dirs.push(root);
  const work = join(root, "checkout");
  mkdirSync(work);
  writeFiles(work, { "pkg/a.py": "A = 1\nB = 2\n", "tests/test_a.py": "def test_a():\n    pass\n" });
  git(work, "init", "-q");
  git(work, "add", "-A");
  git(work, "commit", "-qm", "base");
  return { root, tree: detachGitDir(work, join(root, "checkout.git")) };
}

describe("the one parser", () => {
  it("leaves every line outside a header or hunk out of the block it applies, and counts them", () => {
    const text =
      'commit message\n\ndiff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\nIndex: a/.git/config\n5a6\n> [filter "x"]\n*** a/tests/conftest.py\n';
    const parsed = parsePatch(text);
    expect(parsed.blocks.map((b) => b.text)).toEqual(["diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n"]);
    expect(parsed.ignoredLines).toBe(4);
    expect(parsed.firstIgnored).toEqual({ line: 9, text: "Index: a/.git/config" });
  });

  it("never reads a line longer than a header can be as one", () => {
    const parsed = parsePatch(`diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\nrename to ${"y".repeat(20_000)}\n`);
    expect(parsed.blocks[0]!.paths).toEqual(["x.py"]);
    expect(parsed.ignoredLines).toBe(1);
  });

  it("scans a 20 MB line without overflowing the stack, and says it could not read it whole", () => {
    const [block] = parsePatch(
      `diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+X = "${"A".repeat(20_000_000)}"\n`,
    ).blocks;
    expect(suspiciousReasons([block!])).toContain("the artifact has a line too long to scan whole (x.py)");
  });
});

describe("what is written is what was approved", () => {
  it("a change at a path no kept block names voids the artifact (GNU patch through a link the artifact makes)", async () => {
    const { root, tree } = checkout();
    const { blocks } = parsePatch(
      "diff --git a/lnk b/lnk\nnew file mode 120000\n--- /dev/null\n+++ b/lnk\n@@ -0,0 +1 @@\n+tests\n\\ No newline at end of file\n" +
        "diff --git a/lnk/__init__.py b/lnk/__init__.py\nnew file mode 100644\n--- /dev/null\n+++ b/lnk/__init__.py\n@@ -0,0 +1 @@\n+X = 1\n",
    );
    const r = await applyKeptBlocks(tree, blocks, root, () => undefined);
    expect(r).toEqual({ error: "refused: applying the artifact (patch-fuzz) changed paths that no kept block names: tests/__init__.py" });
  });

  it("compares the whole tree, .git and ignored files included", () => {
    const { tree } = checkout();
    const before = snapshotTree(tree.workTree);
    writeFiles(tree.workTree, { ".git/config": "[filter]\n", "pkg/a.py": "A = 2\n", "build/x.o": "x" });
    const changed = changedPaths(before, snapshotTree(tree.workTree));
    expect(changed).toEqual([".git", ".git/config", "build", "build/x.o", "pkg/a.py"]);
    expect(unapprovedChanges(changed, ["pkg/a.py"])).toEqual([".git", ".git/config", "build", "build/x.o"]);
  });

  it("held-out tests are written as bytes, never through a link, and a link where their directory goes is the artifact's failure", () => {
    const { tree } = checkout();
    const files = [{ path: "tests/test_new.py", kind: "file" as const, data: Buffer.from("def test_new():\n    pass\n"), mode: 0o644 }];
    // A held-out file the artifact replaced by a link to its own code: the link is replaced, its target untouched.
    symlinkSync("../pkg/a.py", join(tree.workTree, "tests", "test_new.py"));
    expect(writeHeldOut(tree.workTree, files)).toBeNull();
    expect(lstatSync(join(tree.workTree, "tests", "test_new.py")).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(tree.workTree, "pkg", "a.py"), "utf8")).toBe("A = 1\nB = 2\n");
    rmSync(join(tree.workTree, "tests"), { recursive: true });
    symlinkSync("pkg", join(tree.workTree, "tests"));
    expect(writeHeldOut(tree.workTree, files)).toBe("tests is a symbolic link where the held-out tests need a directory");
    expect(existsSync(join(tree.workTree, "pkg", "test_new.py"))).toBe(false);
  });
});
