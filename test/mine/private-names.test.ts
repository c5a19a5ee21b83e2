import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { privateNamesAtStages } from "../../src/mine/private-names.js";
import { git } from "../verify/fixture.js";
import { gitHistory } from "../helpers/git-history.js";
import { tempDir } from "../helpers/temp.js";

describe("private names of the files a stage touches, before and after it", () => {
  it("replays the stages from the base onto a scratch index, in a bare repository too", async () => {
    const root = tempDir();
    const h = gitHistory(root, "repo");
    h.init();
    const base = h.commit("base", { "pkg/a.py": "def _old_helper():\n    return __name__\n", "pkg/b.py": "def _untouched():\n    pass\n" });
    const s1 = h.commit("one", { "pkg/a.py": "def _new_helper():\n    return 1\n", "pkg/c.py": "_FLAG = True\n" });
    const s2 = h.commit("two", { "pkg/a.py": "def _new_helper():\n    return _x + _limit\n" });
    const diff = (a: string, b: string) => git(h.repo, "diff", "--binary", "--full-index", "--no-renames", a, b);
    const bare = join(root, "bare.git");
    git(root, "clone", "-q", "--bare", h.repo, bare);
    const names = await privateNamesAtStages(bare, base, [diff(base, s1), diff(s1, s2), ""]);
    // Stage 1: a.py before (_old_helper) and after (_new_helper), the new c.py; never b.py, which no stage touches.
    expect(names[0]).toEqual(["_FLAG", "_new_helper", "_old_helper"]);
    // Stage 2 starts from stage 1's result; one-letter _x and dunder names are no private names.
    expect(names[1]).toEqual(["_limit", "_new_helper"]);
    expect(names[2]).toEqual([]);
  });
});
