import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { InfraFault } from "../../src/core/infra-fault.js";
import { checkoutAt, materializeRepo } from "../../src/dataset/repo-cache.js";
import { artifactExcludes, collectPatch } from "../../src/run/artifact.js";
import { overlayChangedPaths } from "../../src/run/overlay-changes.js";
import { createWorkspaces, withoutSections, type SessionWorkspaces } from "../../src/run/workspaces.js";
import { workspaceNames } from "../../src/formats/sessions.js";
import { tempDir } from "../helpers/synthetic-dataset.js";
import { makeRunFixture, type RunFixture } from "./fixture.js";

const env = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "a",
  GIT_AUTHOR_EMAIL: "a@a",
  GIT_COMMITTER_NAME: "a",
  GIT_COMMITTER_EMAIL: "a@a",
};
const sh = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env, encoding: "utf8" }).trim();

let fx: RunFixture;
let ws: SessionWorkspaces;

beforeAll(async () => {
  fx = makeRunFixture(1);
  ws = await createWorkspaces(fx.dataset, fx.sessions.pairs[0]!, join(fx.root, "work", "abc"));
});

describe("workspaces", () => {
  it("checks out five workspaces at their bases, on a lone main branch with no remote", async () => {
    for (const w of workspaceNames) {
      const dir = ws.paths[w];
      expect(sh(dir, "rev-parse", "HEAD")).toBe(ws.baseCommits[w]);
      expect(sh(dir, "symbolic-ref", "HEAD")).toBe("refs/heads/main");
      expect(sh(dir, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
      expect(sh(dir, "remote")).toBe("");
      expect(sh(dir, "status", "--porcelain")).toBe("");
      expect(sh(dir, "log", "--all", "--format=%H")).toBe(ws.baseCommits[w]);
    }
    // No alternates into the cache (whose refs include later revisions).
    expect(existsSync(join(ws.paths.w00, ".git", "objects", "info", "alternates"))).toBe(false);
    // The history comes as one pack, not as loose objects (copied one file each per workspace).
    expect(sh(ws.paths.w00, "count-objects", "-v")).toMatch(/^count: 0$[\s\S]*^packs: 1$/m);
  });

  it("an existing workspace directory or an unknown base is an infrastructure fault", async () => {
    const pair = fx.sessions.pairs[0]!;
    const dir = join(fx.root, "work", "exists");
    mkdirSync(dir, { recursive: true });
    await expect(createWorkspaces(fx.dataset, pair, dir)).rejects.toBeInstanceOf(InfraFault);
    const broken = { ...fx.dataset, tasks: fx.dataset.tasks.map((t) => (t.id === pair.focus ? { ...t, base: "no-such-revision" } : t)) };
    await expect(createWorkspaces(broken, pair, join(fx.root, "work", "broken"))).rejects.toThrow(
      /base no-such-revision of task .* not found/,
    );
  });

  it("drops remote and branch sections from a git config", () => {
    const text =
      '[core]\n\tbare = false\n[remote "origin"]\n\turl = /x\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch "master"]\n\tremote = origin\n[user]\n\tname = x\n';
    expect(withoutSections(text, /^\[(remote|branch) "/)).toBe("[core]\n\tbare = false\n[user]\n\tname = x\n");
  });
});

describe("artifact collection", () => {
  it("collects committed, uncommitted, new, deleted and binary changes, skips excluded paths, and leaves the agent's index alone", async () => {
    const dir = ws.paths.w01;
    const tracked = sh(dir, "ls-files").split("\n");
    const [first, second, third] = tracked.filter((f) => f.endsWith(".py"));
    // A commit by the agent.
    writeFileSync(join(dir, first!), "committed = True\n");
    sh(dir, "commit", "-qam", "agent commit");
    // Uncommitted, staged in the agent's own index.
    writeFileSync(join(dir, second!), "staged = True\n");
    sh(dir, "add", second!);
    // A deletion, a new text file, a new binary file, a file under a nested build/ directory (kept).
    rmSync(join(dir, third!));
    mkdirSync(join(dir, "pkg", "build"), { recursive: true });
    writeFileSync(join(dir, "pkg", "build", "kept.py"), "kept = 1\n");
    writeFileSync(join(dir, "new file é.py"), "new = 1\n");
    const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    writeFileSync(join(dir, "blob.bin"), binary);
    // Excluded: caches, builds, venvs, agent state and logs.
    const excluded = [
      "pkg/__pycache__/m.cpython-311.pyc",
      "stray.pyc",
      ".pytest_cache/v/x",
      ".venv/lib/site.py",
      "venv/bin/python",
      "node_modules/x/i.js",
      "build/lib/out.py",
      "dist/pkg.whl",
      "pkg.egg-info/PKG-INFO",
      ".opencode/state.json",
      ".claude/settings.json",
      ".codex/log",
      "run.log",
      "pkg/debug.log",
    ];
    for (const f of excluded) {
      mkdirSync(join(dir, f, ".."), { recursive: true });
      writeFileSync(join(dir, f), "junk\n");
    }
    const indexBefore = readFileSync(join(dir, ".git", "index"));
    const headBefore = sh(dir, "rev-parse", "HEAD");

    const out = join(fx.root, "patches", "w01.patch");
    const c = await collectPatch(dir, ws.baseCommits.w01, out, ws.objectStores.w01);
    expect(c.files).toEqual(["blob.bin", first!, "new file é.py", "pkg/build/kept.py", second!, third!].sort());
    for (const f of excluded) expect(c.files).not.toContain(f);
    expect(readFileSync(join(dir, ".git", "index"))).toEqual(indexBefore);
    expect(sh(dir, "rev-parse", "HEAD")).toBe(headBefore);
    expect(c.bytes).toBe(readFileSync(out).length);
    const layers = ws.layers.w01;
    if (layers) {
      // Copy-on-write: the paths the upper layer names give the same patch, and the shared base is untouched.
      const fromUpper = await collectPatch(
        dir,
        ws.baseCommits.w01,
        join(fx.root, "patches", "w01-upper.patch"),
        ws.objectStores.w01,
        overlayChangedPaths(layers),
      );
      expect({ ...fromUpper, file: "" }).toEqual({ ...c, file: "" });
      expect(sh(layers.lower, "status", "--porcelain")).toBe("");
      expect(sh(layers.lower, "rev-parse", "HEAD")).toBe(ws.baseCommits.w01);
    }

    // The patch reproduces the workspace on a fresh checkout of the base.
    const repo = await materializeRepo(fx.dataset, "demo");
    const fresh = join(tempDir(), "fresh");
    await checkoutAt(repo, ws.baseCommits.w01, fresh);
    sh(fresh, "apply", out);
    expect(readFileSync(join(fresh, first!), "utf8")).toBe("committed = True\n");
    expect(readFileSync(join(fresh, second!), "utf8")).toBe("staged = True\n");
    expect(existsSync(join(fresh, third!))).toBe(false);
    expect(readFileSync(join(fresh, "new file é.py"), "utf8")).toBe("new = 1\n");
    expect(readFileSync(join(fresh, "blob.bin"))).toEqual(binary);
    expect(existsSync(join(fresh, "run.log"))).toBe(false);
  });

  it("an untouched workspace gives an empty patch", async () => {
    const c = await collectPatch(ws.paths.w02, ws.baseCommits.w02, join(fx.root, "patches", "w02.patch"), ws.objectStores.w02);
    expect(c).toMatchObject({ bytes: 0, files: [] });
    expect(readFileSync(join(fx.root, "patches", "w02.patch"), "utf8")).toBe("");
  });

  it("never executes what the agent planted in its .git (filters, fsmonitor, hooks, includes)", async () => {
    const dir = ws.paths.w04;
    const marker = join(fx.root, "pwned");
    const evil = `sh -c 'touch ${marker}; cat'`;
    const cfg = join(dir, ".git", "config");
    writeFileSync(
      cfg,
      `${readFileSync(cfg, "utf8")}[filter "x"]\n\tclean = ${evil}\n\tsmudge = ${evil}\n[core]\n\tfsmonitor = ${evil}\n\thooksPath = ${dir}/.hooks\n[include]\n\tpath = ${dir}/more.cfg\n[diff]\n\texternal = ${evil}\n`,
    );
    mkdirSync(join(dir, ".hooks"), { recursive: true });
    writeFileSync(join(dir, "more.cfg"), `[core]\n\tpager = ${evil}\n`);
    writeFileSync(join(dir, ".gitattributes"), "* filter=x diff=x\n");
    writeFileSync(join(dir, "added.py"), "x = 1\n");
    const c = await collectPatch(dir, ws.baseCommits.w04, join(fx.root, "patches", "w04.patch"), ws.objectStores.w04);
    expect(c.files).toContain("added.py");
    expect(existsSync(marker)).toBe(false);
  });

  it("ignores the workspace's .gitattributes: a file marked binary or -diff still comes out as a text diff", async () => {
    const dir = ws.paths.w00;
    writeFileSync(join(dir, ".gitattributes"), "*.py binary\nsneaky.txt -diff\n");
    writeFileSync(join(dir, "hidden.py"), "import base64\nexec(base64.b64decode('cHJpbnQoMSk='))\n");
    writeFileSync(join(dir, "sneaky.txt"), "plain words\n");
    const out = join(fx.root, "patches", "w00-attrs.patch");
    const c = await collectPatch(dir, ws.baseCommits.w00, out, ws.objectStores.w00);
    expect(c.files).toEqual(expect.arrayContaining(["hidden.py", "sneaky.txt", ".gitattributes"]));
    const text = readFileSync(out, "utf8");
    expect(text).not.toContain("GIT binary patch");
    expect(text).not.toMatch(/^Binary files/m);
    expect(text).toContain("+exec(base64.b64decode('cHJpbnQoMSk='))");
    expect(text).toContain("+plain words");
  });

  it("names every excluded pattern once", () => {
    expect(new Set(artifactExcludes).size).toBe(artifactExcludes.length);
    expect(artifactExcludes).toContain("**/__pycache__/**");
  });

  it("lists changed paths exactly, also those git quotes (tab, quote, backslash, non-ASCII)", async () => {
    const dir = ws.paths.w03;
    const names = ["tab\tname.py", 'quo"te.py', "back\\slash.py", "caf\u00e9 x.py"];
    for (const n of names) writeFileSync(join(dir, n), "x = 1\n");
    const c = await collectPatch(dir, ws.baseCommits.w03, join(fx.root, "patches", "w03.patch"), ws.objectStores.w03);
    expect(c.files).toEqual([...names].sort());
  });
});
