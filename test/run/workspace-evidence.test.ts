import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitOut } from "../../src/core/git.js";
import { workspaceNames, type WorkspaceName } from "../../src/formats/sessions.js";
import { parseRawDiff, WorkspaceEvidence } from "../../src/run/workspace-evidence.js";
import { tempDir } from "../helpers/synthetic-dataset.js";

/** Five real checkouts, each one commit with a.py and pkg/b.py. */
async function fiveCheckouts(): Promise<Record<WorkspaceName, string>> {
  const root = tempDir("evidence-");
  const paths = {} as Record<WorkspaceName, string>;
  for (const w of workspaceNames) {
    const dir = join(root, w);
    mkdirSync(join(dir, "pkg"), { recursive: true });
    writeFileSync(join(dir, "a.py"), `x = "${w}"\n`);
    writeFileSync(join(dir, "pkg", "b.py"), "def f():\n    return 1\n");
    writeFileSync(join(dir, ".gitignore"), "*.tmp\n");
    await git(["init", "-q", "-b", "main", dir]);
    await git(["-C", dir, "add", "-A"]);
    await git(["-C", dir, "commit", "-q", "-m", "base"]);
    paths[w] = dir;
  }
  return paths;
}

const headTree = (dir: string) => gitOut(["-C", dir, "rev-parse", "HEAD^{tree}"]);
const blobAt = (dir: string, path: string) => gitOut(["-C", dir, "rev-parse", `HEAD:${path}`]);
const hashFile = (dir: string, path: string) => gitOut(["-C", dir, "hash-object", "--no-filters", path]);

describe("workspace evidence", () => {
  it("records each checkout's tree and the files a request changed, with blob ids before and after", async () => {
    const paths = await fiveCheckouts();
    const ev = await WorkspaceEvidence.open(paths);
    try {
      const first = await ev.snapshot();
      for (const w of workspaceNames) expect(first.trees[w]).toEqual({ tree: await headTree(paths[w]) });
      expect(first.changed).toEqual({});

      // A "request" edits w01 (modify, add, delete, an ignored file), commits nothing.
      const beforeA = await blobAt(paths.w01, "a.py");
      const beforeB = await blobAt(paths.w01, "pkg/b.py");
      writeFileSync(join(paths.w01, "a.py"), "x = 2\n");
      writeFileSync(join(paths.w01, "pkg", "new.py"), "y = 1\n");
      rmSync(join(paths.w01, "pkg", "b.py"));
      writeFileSync(join(paths.w01, "scratch.tmp"), "ignored\n");
      mkdirSync(join(paths.w01, "__pycache__"));
      writeFileSync(join(paths.w01, "__pycache__", "a.pyc"), "excluded like the artifact\n");
      const second = await ev.snapshot();
      expect(Object.keys(second.changed)).toEqual(["w01"]);
      expect(second.changed.w01).toEqual([
        { path: "a.py", before: beforeA, after: await hashFile(paths.w01, "a.py") },
        { path: "pkg/b.py", before: beforeB, after: null },
        { path: "pkg/new.py", before: null, after: await hashFile(paths.w01, "pkg/new.py") },
      ]);
      expect(second.trees.w01.tree).not.toBe(first.trees.w01.tree);
      expect(second.trees.w00).toEqual(first.trees.w00);

      // Undoing the edit gives back the base tree, and the changes say so (after = the old blob).
      await git(["-C", paths.w01, "checkout", "-q", "--", "."]);
      rmSync(join(paths.w01, "pkg", "new.py"));
      const third = await ev.snapshot();
      expect(third.trees.w01).toEqual(first.trees.w01);
      expect(third.changed.w01?.find((c) => c.path === "a.py")).toMatchObject({ after: beforeA });
      // Committing does not change the working state: no change is recorded.
      writeFileSync(join(paths.w02, "a.py"), "committed\n");
      await git(["-C", paths.w02, "commit", "-q", "-am", "agent commit"]);
      const fourth = await ev.snapshot();
      expect(Object.keys(fourth.changed)).toEqual(["w02"]);
      expect(fourth.trees.w02).toEqual({ tree: await headTree(paths.w02) });
      // Nothing touched: the same trees, nothing changed (git is not asked again).
      const fifth = await ev.snapshot();
      expect(fifth.trees).toEqual(fourth.trees);
      expect(fifth.changed).toEqual({});
      // Same size, modification time set back: the change time still gives it away.
      const file = join(paths.w03, "a.py");
      const { atime, mtime } = statSync(file);
      writeFileSync(file, `x = "w9"\n`);
      utimesSync(file, atime, mtime);
      const sixth = await ev.snapshot();
      expect(sixth.changed.w03?.map((c) => c.path)).toEqual(["a.py"]);
    } finally {
      ev.close();
    }
  });

  it("never runs the workspace's own hooks, fsmonitor or filters, and survives a deleted workspace", async () => {
    const paths = await fiveCheckouts();
    const marker = join(tempDir("evidence-marker-"), "ran");
    const evil = join(tempDir("evidence-evil-"), "evil.sh");
    writeFileSync(evil, `#!/bin/sh\ntouch ${marker}\ncat\n`);
    chmodSync(evil, 0o755);
    const w = paths.w02;
    await git(["-C", w, "config", "core.fsmonitor", evil]);
    await git(["-C", w, "config", "filter.evil.clean", evil]);
    await git(["-C", w, "config", "filter.evil.required", "true"]);
    await git(["-C", w, "config", "core.hooksPath", join(evil, "..")]);
    writeFileSync(join(w, ".gitattributes"), "* filter=evil\n");
    const ev = await WorkspaceEvidence.open(paths);
    try {
      const s = await ev.snapshot();
      expect(existsSync(marker)).toBe(false);
      expect(s.trees.w02.tree).toMatch(/^[0-9a-f]{40}$/);

      renameSync(paths.w03, `${paths.w03}.gone`);
      const gone = await ev.snapshot();
      expect(gone.trees.w03.tree).toBeNull();
      expect(gone.trees.w03.error).toMatch(/does not exist/);
      renameSync(`${paths.w03}.gone`, paths.w03);
      writeFileSync(join(paths.w03, "a.py"), "back\n");
      const back = await ev.snapshot();
      expect(back.changed.w03?.map((c) => c.path)).toEqual(["a.py"]);
      expect(existsSync(marker)).toBe(false);
    } finally {
      ev.close();
    }
  });

  it("parses raw diff-tree output, paths with spaces and newlines included", () => {
    const z = "0".repeat(40);
    const a = "a".repeat(40);
    const b = "b".repeat(40);
    const raw = `:100644 100644 ${a} ${b} M\0dir/a file.py\0:000000 100644 ${z} ${b} A\0odd\nname\0:100644 000000 ${a} ${z} D\0gone.py\0`;
    expect(parseRawDiff(raw)).toEqual([
      { path: "dir/a file.py", before: a, after: b },
      { path: "odd\nname", before: null, after: b },
      { path: "gone.py", before: a, after: null },
    ]);
  });
});
