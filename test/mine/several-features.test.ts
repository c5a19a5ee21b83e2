import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { severalFeatures, unrelatedStage } from "../../src/mine/candidates.js";
import { gitHistory } from "../helpers/git-history.js";
import { tempDir } from "../verify/fixture.js";

const root = tempDir();
afterAll(() => rmSync(root, { recursive: true, force: true }));
const { repo, init, commit } = gitHistory(root, "r");
init();
const base = commit("Initial layout", { "a.py": "0\n", "b.py": "0\n", "c.py": "0\n" });
const pr803 = commit("Refactor HTML Parser (#803)", { "a.py": "1\n" });
const pr970 = commit("Support unicode ids in toc (#970)", { "b.py": "1\n" });
const plain = commit("Polish the parser", { "a.py": "2\n" });
const fix803 = commit("Fix a regression of #803 and #812", { "a.py": "3\n" });
const gitDir = join(repo, ".git");

describe("stages that are several features", () => {
  it("are two stages naming disjoint pull requests or issues, with both commits and numbers in the reason", async () => {
    expect(await severalFeatures(gitDir, [pr803, pr970])).toBe(
      `stage commits ${pr803.slice(0, 12)} and ${pr970.slice(0, 12)} name different pull requests or issues (#803 / #970)`,
    );
    expect(await severalFeatures(gitDir, [plain, pr970, pr803])).toMatch(/#970 \/ #803/);
  });

  it("are not stages that name nothing, or numbers they share", async () => {
    expect(await severalFeatures(gitDir, [pr803, plain])).toBeNull();
    expect(await severalFeatures(gitDir, [pr803, plain, fix803])).toBeNull();
  });
});

describe("a chain stage unrelated to the stages before it", () => {
  const isSource = (p: string) => p.endsWith(".py") && !p.startsWith("tests/");
  const isTest = (p: string) => p.startsWith("tests/");
  it("changes no source file an earlier stage changed", async () => {
    expect(await unrelatedStage(gitDir, base, [pr803, pr970], isSource, isTest)).toBe(`stage 2 (${pr970.slice(0, 12)}) changes no source file an earlier stage changed`);
  });
  it("is not a stage that changes a file an earlier stage changed", async () => {
    expect(await unrelatedStage(gitDir, base, [pr803, plain], isSource, isTest)).toBeNull();
    expect(await unrelatedStage(gitDir, base, [pr970, fix803], isSource, isTest)).toBeNull();
  });
});
