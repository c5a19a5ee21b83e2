import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  realpathSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { mountsUnder } from "../../src/core/overlay.js";
import { workspaceNames } from "../../src/formats/sessions.js";
import { collectPatch } from "../../src/run/artifact.js";
import { overlayChangedPaths } from "../../src/run/overlay-changes.js";
import { WorkspaceEvidence } from "../../src/run/workspace-evidence.js";
import { createWorkspaces, reapOrphanWorkDirs, removeWorkDir } from "../../src/run/workspaces.js";
import { makeRunFixture, type RunFixture } from "./fixture.js";

let fx: RunFixture;
let overlays = false;

beforeAll(async () => {
  fx = makeRunFixture(1);
  const probe = join(fx.root, "work", "probe");
  const ws = await createWorkspaces(fx.dataset, fx.sessions.pairs[0]!, probe);
  overlays = ws.mode.kind === "overlay";
  await removeWorkDir(probe);
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=a", "-c", "user.email=a@a", ...args], { cwd, encoding: "utf8" }).trim();

describe("copy-on-write workspaces", () => {
  it("evidence read from the upper layer equals a full read of the same files, request after request, whatever the agent did", async (ctx) => {
    if (!overlays) ctx.skip();
    const work = join(fx.root, "work", "evidence");
    const ws = await createWorkspaces(fx.dataset, fx.sessions.pairs[0]!, work);
    expect(ws.mode).toEqual({ kind: "overlay" });
    const fromUpper = await WorkspaceEvidence.open(ws.paths, ws.layers);
    const full = await WorkspaceEvidence.open(ws.paths);
    const same = async () => {
      const [a, b] = [await fromUpper.snapshot(), await full.snapshot()];
      expect(a).toEqual(b);
      return a;
    };
    try {
      await same();
      const d = ws.paths.w00;
      const tracked = git(d, "ls-files").split("\n");
      const [file, dirFile] = [tracked.find((f) => f.split("/").length === 2)!, tracked.find((f) => f.split("/").length === 3)!];
      const dir = dirFile.split("/").slice(0, 2).join("/");
      // Request 1: a change, a deletion, a new file, an ignored file, an excluded one, a hard link written through.
      writeFileSync(join(d, file), "changed\n");
      rmSync(
        join(
          d,
          tracked.find((f) => f !== file && f !== dirFile && f.endsWith(".py"))!,
        ),
      );
      writeFileSync(join(d, ".gitignore"), "*.tmp\n");
      writeFileSync(join(d, "x.tmp"), "ignored\n");
      mkdirSync(join(d, "pkg", "__pycache__"), { recursive: true });
      writeFileSync(join(d, "pkg", "__pycache__", "m.pyc"), "excluded\n");
      writeFileSync(join(d, "made.py"), "new\n");
      linkSync(join(d, dirFile), join(d, "link.py"));
      writeFileSync(join(d, "link.py"), "through a hard link\n");
      expect((await same()).changed.w00?.length).toBeGreaterThan(3);
      // Request 2: a directory removed and made again (an opaque directory), a directory replaced by a
      // file, a file replaced by a directory, a symlink, a nested repository, the new file removed again.
      rmSync(join(d, dir), { recursive: true });
      mkdirSync(join(d, dir));
      writeFileSync(join(d, dir, "only.py"), "alone\n");
      const other = tracked.find((f) => f.split("/").length === 3 && !f.startsWith(`${dir}/`))!;
      const otherDir = other.split("/").slice(0, 2).join("/");
      rmSync(join(d, otherDir), { recursive: true });
      writeFileSync(join(d, otherDir), "now a file\n");
      rmSync(join(d, file));
      mkdirSync(join(d, file));
      writeFileSync(join(d, file, "inside.py"), "x\n");
      symlinkSync("made.py", join(d, "alias.py"));
      mkdirSync(join(d, "nested"));
      git(join(d, "nested"), "init", "-q");
      writeFileSync(join(d, "nested", "n.py"), "n\n");
      git(join(d, "nested"), "add", "n.py");
      git(join(d, "nested"), "commit", "-qm", "n");
      rmSync(join(d, "made.py"));
      await same();
      // Request 3: the agent commits in its own repository (its .git is never read), another workspace changes.
      git(d, "add", "-A");
      git(d, "commit", "-qm", "agent");
      writeFileSync(join(ws.paths.w03, "late.py"), "late\n");
      const last = await same();
      expect(Object.keys(last.changed)).toEqual(["w03"]);
      // The patch from the upper layer's paths is the patch of the whole tree.
      for (const w of workspaceNames) {
        const a = await collectPatch(ws.paths[w], ws.baseCommits[w], join(fx.root, "p", `${w}-full.patch`), ws.objectStores[w]);
        const b = await collectPatch(
          ws.paths[w],
          ws.baseCommits[w],
          join(fx.root, "p", `${w}-upper.patch`),
          ws.objectStores[w],
          overlayChangedPaths(ws.layers[w]!),
        );
        expect(b.sha256).toBe(a.sha256);
        expect(b.files).toEqual(a.files);
      }
      // The shared base saw none of it: the hard link's target, the deleted and replaced files are whole.
      const lower = ws.layers.w00!.lower;
      expect(git(lower, "status", "--porcelain", "--ignored")).toBe("");
      expect(git(lower, "log", "--all", "--format=%H")).toBe(ws.baseCommits.w00);
    } finally {
      fromUpper.close();
      full.close();
      await removeWorkDir(work);
    }
  });

  it("a work directory left mounted by a killed run is unmounted and removed, and the next attempt starts clean", async (ctx) => {
    if (!overlays) ctx.skip();
    const work = join(fx.root, "run", "work", "killed");
    const ws = await createWorkspaces(fx.dataset, fx.sessions.pairs[0]!, work);
    writeFileSync(join(ws.paths.w02, "left.py"), "by the killed attempt\n");
    const real = realpathSync(join(ws.paths.w02, ".."));
    expect(readFileSync(join(real, ".link"), "utf8")).toBe(work);
    expect(mountsUnder(real)).toHaveLength(5);
    // The run directory is gone (deleted after a kill -9): its staging directory is an orphan.
    rmSync(join(fx.root, "run"), { recursive: true });
    const reaped = await reapOrphanWorkDirs();
    expect(reaped).toContain(real);
    expect(existsSync(real)).toBe(false);
    expect(mountsUnder(real)).toEqual([]);
    const again = await createWorkspaces(fx.dataset, fx.sessions.pairs[0]!, work);
    expect(readdirSync(again.paths.w02)).not.toContain("left.py");
    await removeWorkDir(work);
    expect(mountsUnder(real)).toEqual([]);
  });

  it("falls back to copies with the reason: asked for by SWITCH_SWE_WORKSPACES=copy, and where the user cannot mount", async () => {
    process.env.SWITCH_SWE_WORKSPACES = "copy";
    const work = join(fx.root, "work", "copies");
    try {
      const ws = await createWorkspaces(fx.dataset, fx.sessions.pairs[0]!, work);
      expect(ws.mode).toEqual({ kind: "copy", reason: "SWITCH_SWE_WORKSPACES=copy" });
      expect(ws.layers).toEqual({});
      expect(mountsUnder(join(ws.paths.w00, ".."))).toEqual([]);
    } finally {
      delete process.env.SWITCH_SWE_WORKSPACES;
      await removeWorkDir(work);
    }
    // An unprivileged user (nobody) cannot mount overlays in the host's mount namespace: the probe says why.
    if (process.getuid?.() !== 0) return;
    const scratch = join(fx.root, "nobody");
    mkdirSync(scratch);
    chmodSync(scratch, 0o777);
    execFileSync("chmod", ["755", fx.root]);
    const probe = `import("${join(process.cwd(), "dist", "core", "overlay.js")}").then(async (m) => console.log(await m.overlayUnavailable(${JSON.stringify(scratch)})))`;
    const out = execFileSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", probe], {
      encoding: "utf8",
    });
    expect(out).toMatch(/^mount -t overlay: .+/);
  });
});
