import { chmodSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { applyWithFallbacks } from "../../src/testbed/apply-patch.js";
import { pytestRunner } from "../../src/testbed/pytest-runner.js";
import { dropTestFiles } from "../../src/verify/artifact-filter.js";
import { checkPatchPaths, checkSymlinkEscapes } from "../../src/verify/path-safety.js";
import { joinBlocks, splitPatch } from "../../src/core/patch-blocks.js";
import { git, tempDir, writeFiles } from "./fixture.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 1, 2, 3, 255]);
const baseFiles = {
  "src/a.py": "def a():\n    return 1\n",
  "src/keep.py": Array.from({ length: 40 }, (_, i) => `line_${i} = ${i}`).join("\n") + "\n",
  "src/gone.py": "GONE = True\n",
  "assets/logo.png": png,
  "assets/data.bin": Buffer.from([1, 2, 3, 0, 4, 5]),
  "tests/test_a.py": "def test_a():\n    assert True\n",
  "run.sh": "#!/bin/sh\necho hi\n",
};

/** A repository with one commit of baseFiles; returns its dir. */
function baseRepo(): string {
  const d = tempDir("switch-swe-blocks-");
  dirs.push(d);
  writeFiles(d, baseFiles);
  symlinkSync("a.py", join(d, "src", "link.py"));
  git(d, "init", "-q");
  git(d, "add", "-A");
  git(d, "commit", "-qm", "base");
  return d;
}

/** Every kind of change git can express in one diff, and the tree id it leads to. */
function everyKindOfChange(): { patch: string; tree: string } {
  const d = baseRepo();
  writeFiles(d, {
    "src/a.py": "def a():\n    return 2\n",
    "src/new.py": "NEW = 1\n",
    "assets/logo.png": Buffer.concat([png, Buffer.from([7, 7, 7])]),
    "assets/new.bin": Buffer.from([0, 0, 0, 9, 255]),
    "tests/test_a.py": "def test_a():\n    assert False\n",
    "src/tricky.py": "x = 1\n-- y\n--- z\n+++ w\n",
    "src/empty.txt": "",
  });
  unlinkSync(join(d, "src", "gone.py"));
  renameSync(join(d, "src", "keep.py"), join(d, "src", "kept.py"));
  unlinkSync(join(d, "assets", "data.bin"));
  chmodSync(join(d, "run.sh"), 0o755);
  unlinkSync(join(d, "src", "link.py"));
  symlinkSync("new.py", join(d, "src", "link.py"));
  git(d, "add", "-A");
  const patch = git(d, "diff", "--cached", "--binary", "-M", "HEAD");
  const tree = git(d, "write-tree").trim();
  return { patch, tree };
}

describe("splitPatch", () => {
  it("round-trips every kind of change byte for byte, one block per file", () => {
    const { patch } = everyKindOfChange();
    const blocks = splitPatch(patch);
    expect(joinBlocks(blocks)).toBe(patch);
    const names = blocks.map((b) => `${b.from ?? "-"}>${b.to ?? "-"}`).sort();
    expect(names).toEqual(
      [
        "assets/data.bin>-",
        "assets/logo.png>assets/logo.png",
        "->assets/new.bin",
        "run.sh>run.sh",
        "src/a.py>src/a.py",
        "->src/empty.txt",
        "src/gone.py>-",
        "src/keep.py>src/kept.py",
        "src/link.py>src/link.py",
        "->src/new.py",
        "->src/tricky.py",
        "tests/test_a.py>tests/test_a.py",
      ].sort(),
    );
    expect(blocks.find((b) => b.to === "assets/new.bin")!.binary).toBe(true);
    expect(blocks.find((b) => b.to === "src/link.py")!.symlinkTarget).toBe("new.py");
  });

  it("does not take a removed line reading `--- x` for a file header", () => {
    const text =
      "--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n a\n--- not a header\n+++ not one either\n b\n--- a/g.py\n+++ b/g.py\n@@ -1 +1 @@\n-x\n+y\n";
    const blocks = splitPatch(text);
    expect(blocks.map((b) => b.to)).toEqual(["f.py", "g.py"]);
    expect(joinBlocks(blocks)).toBe(text);
  });

  it("applies what is kept after dropping test files, and the tree matches exactly", async () => {
    const { patch, tree } = everyKindOfChange();
    const { kept, dropped } = dropTestFiles(splitPatch(patch), {}, "", { runner: pytestRunner, command: pytestRunner.defaultCommand });
    expect(dropped).toEqual(["tests/test_a.py"]);
    const d = baseRepo();
    const file = join(d, "..", `${d.split("/").pop()}.patch`);
    writeFileSync(file, joinBlocks(kept));
    dirs.push(file);
    const logs: string[] = [];
    const r = await applyWithFallbacks(d, file, (t) => logs.push(t));
    expect(r).toEqual({ ok: true, method: "git-apply" });
    // The only difference from the full change is the dropped test file.
    git(d, "add", "-A");
    writeFileSync(join(d, "tests", "test_a.py"), "def test_a():\n    assert False\n");
    git(d, "add", "-A");
    expect(git(d, "write-tree").trim()).toBe(tree);
    expect(readFileSync(join(d, "assets", "new.bin"))).toEqual(Buffer.from([0, 0, 0, 9, 255]));
  });
});

describe("path checks", () => {
  it("refuses .., absolute, .git and escaping symlink targets; accepts ordinary paths", () => {
    const mk = (header: string) => splitPatch(`${header}@@ -0,0 +1 @@\n+x\n`);
    expect(checkPatchPaths(mk("--- /dev/null\n+++ b/src/ok.py\n"))).toBeNull();
    expect(checkPatchPaths(mk("--- /dev/null\n+++ b/src/../../x\n"))).toContain("src/../../x");
    expect(checkPatchPaths(mk("--- /dev/null\n+++ /etc/x\n"))).toContain("/etc/x: absolute path");
    expect(checkPatchPaths(mk("diff --git a/x/.git/config b/x/.git/config\n--- a/x/.git/config\n+++ b/x/.git/config\n"))).toContain(
      ".git/",
    );
    const link = (target: string) =>
      splitPatch(
        `diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+${target}\n\\ No newline at end of file\n`,
      );
    expect(checkPatchPaths(link("src/a.py"))).toBeNull();
    expect(checkPatchPaths(link("../../etc"))).toContain("leads outside");
  });

  it("accepts a write through an in-repository symlink, refuses one through a link chain that leaves", () => {
    const d = baseRepo();
    symlinkSync("src", join(d, "srclink"));
    symlinkSync("/tmp", join(d, "tmplink"));
    const write = (p: string) => splitPatch(`--- /dev/null\n+++ b/${p}\n@@ -0,0 +1 @@\n+x\n`);
    expect(checkSymlinkEscapes(d, write("srclink/new.py"))).toBeNull();
    expect(checkSymlinkEscapes(d, write("tmplink/evil"))).toContain("tmplink is a symbolic link to /tmp");
    // A link the patch creates pointing at a base link that leaves.
    const chain = splitPatch(
      "diff --git a/hop b/hop\nnew file mode 120000\n--- /dev/null\n+++ b/hop\n@@ -0,0 +1 @@\n+tmplink\n\\ No newline at end of file\n",
    );
    expect(checkSymlinkEscapes(d, chain)).toContain("hop: symbolic link to tmplink leads outside");
  });
});
