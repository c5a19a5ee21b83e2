import { lstatSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createdParents } from "../../src/confine/bubblewrap.js";
import { dropArgv, giveForeignToSandbox, giveToSandbox, sandboxHostId, sandboxOwner } from "../../src/confine/sandbox-user.js";
import { tempDir } from "../helpers/temp.js";

describe("the sandbox's host user", () => {
  it("is an unprivileged id as root, the caller's own otherwise", () => {
    expect(sandboxHostId).toBeGreaterThan(65535 * 2);
    expect(sandboxOwner()).toBe(process.getuid?.() === 0 ? sandboxHostId : null);
  });

  it("is dropped to with every capability and the bounding set cleared, before the command", () => {
    expect(dropArgv(7, ["sh", "-c", "id"])).toEqual([
      "/usr/bin/setpriv",
      "--reuid=7",
      "--regid=7",
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--",
      "sh",
      "-c",
      "id",
    ]);
  });

  it.skipIf(process.getuid?.() !== 0)("gets a tree's files, never what a symbolic link in it leads to", () => {
    const root = tempDir("switch-swe-sandbox-user-");
    const tree = join(root, "checkout");
    const outside = join(root, "outside.txt");
    writeFileSync(outside, "the harness's\n");
    mkdirSync(join(tree, "pkg"), { recursive: true });
    writeFileSync(join(tree, "pkg", "mod.py"), "x = 1\n");
    symlinkSync(outside, join(tree, "pkg", "link"));
    giveToSandbox([tree]);
    for (const p of [tree, join(tree, "pkg"), join(tree, "pkg", "mod.py"), join(tree, "pkg", "link")])
      expect(lstatSync(p).uid, p).toBe(sandboxHostId);
    expect(lstatSync(outside).uid).toBe(0);
    // A tree already the sandbox's is left alone when asked (a copy-on-write workspace).
    writeFileSync(join(tree, "new.py"), "");
    giveToSandbox([tree], true);
    expect(lstatSync(join(tree, "new.py")).uid).toBe(0);
    // HOME between requests: what the harness wrote since is handed over, in this process, links not followed.
    giveForeignToSandbox([tree]);
    expect(lstatSync(join(tree, "new.py")).uid).toBe(sandboxHostId);
    expect(lstatSync(outside).uid).toBe(0);
  });
});

describe("directories bubblewrap makes to hold mount points", () => {
  it("are the parents outside every bind and tmpfs mount point, to be made reachable (a 0700 /root would hide a python below it)", () => {
    const binds = ["/usr", "/root/.pyenv/versions/3.12", "/tmp/x/y/script.sh", "/workspace/demo/w00", "/usr/local/lib/z"];
    expect(createdParents(binds, ["/tmp", "/run"]).sort()).toEqual([
      "/root",
      "/root/.pyenv",
      "/root/.pyenv/versions",
      "/tmp/x",
      "/tmp/x/y",
      "/workspace",
      "/workspace/demo",
    ]);
  });
});
