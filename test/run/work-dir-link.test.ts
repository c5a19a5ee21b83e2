import { existsSync, lstatSync, realpathSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createWorkspaces, reapOrphanWorkDirs, removeWorkDir } from "../../src/run/workspaces.js";
import { makeRunFixture } from "./fixture.js";

/**
 * A sandbox's mount table shows the real path of every bind, so an attempt's workspaces live under
 * the cache with a neutral name and RUN_DIR/work/<id> links to them.
 */
describe("an attempt's work directory", () => {
  it("is a link into the cache's work/ (a name without the run), removed with it; orphans are reaped, linked ones kept", async () => {
    const fx = makeRunFixture(1);
    const pair = fx.sessions.pairs[0]!;
    const kept = join(fx.root, "my-run-name", "work", "abc");
    const ws = await createWorkspaces(fx.dataset, pair, kept);
    expect(lstatSync(kept).isSymbolicLink()).toBe(true);
    const real = realpathSync(kept);
    expect(dirname(real)).toBe(realpathSync(join(fx.cache, "work")));
    expect(real).not.toContain("my-run-name");
    expect(realpathSync(ws.paths.w00)).toBe(join(real, "w00"));

    const deleted = join(fx.root, "deleted-run", "work", "def");
    await createWorkspaces(fx.dataset, pair, deleted);
    const orphan = realpathSync(deleted);
    rmSync(join(fx.root, "deleted-run"), { recursive: true });
    expect(await reapOrphanWorkDirs()).toEqual([orphan]);
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(real)).toBe(true);

    await removeWorkDir(kept);
    expect(existsSync(real)).toBe(false);
    expect(existsSync(kept)).toBe(false);
  }, 120_000);
});
