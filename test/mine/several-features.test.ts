import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { severalFeatures, unrelatedStage } from "../../src/mine/candidates.js";
import { unrelatedDefinitions } from "../../src/mine/chain-definitions.js";
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
    expect(await unrelatedStage(gitDir, base, [pr803, pr970], isSource, isTest)).toBe(
      `stage 2 (${pr970.slice(0, 12)}) changes no source file an earlier stage changed`,
    );
  });
  it("is not a stage that changes a file an earlier stage changed", async () => {
    expect(await unrelatedStage(gitDir, base, [pr803, plain], isSource, isTest)).toBeNull();
    expect(await unrelatedStage(gitDir, base, [pr970, fix803], isSource, isTest)).toBeNull();
  });
});

describe("a chain stage that reworks older code the chain never touched", () => {
  const { repo: more, init: initMore, commit: commitMore } = gitHistory(root, "more");
  initMore();
  const fns = (remap: string, partition: string, extra = "") => ({
    "more.py": `def remap(xs):\n    return ${remap}\n\n\ndef partition(xs):\n    return ${partition}\n${extra}`,
  });
  const start = commitMore("Initial layout", fns("list(xs)", "xs"));
  const cache = commitMore("remap: a cache option", fns("list(dict.fromkeys(xs))", "xs"));
  const order = commitMore("remap: keep the order", fns("list(dict.fromkeys(reversed(xs)))", "xs"));
  const predicates = commitMore("partition: several predicates", fns("list(dict.fromkeys(reversed(xs)))", "[x for x in xs if x]"));
  const helper = commitMore(
    "Add a helper",
    fns("list(dict.fromkeys(reversed(xs)))", "[x for x in xs if x]", "\n\ndef helper():\n    return 1\n"),
  );
  const moreDir = join(more, ".git");
  const isSource = (p: string) => p.endsWith(".py");
  const isTest = (p: string) => p.startsWith("tests/");

  it("is a stage that changes an existing function no earlier stage changed, at any position of the chain", async () => {
    // One file throughout: the shared-file rule lets the chain through.
    expect(await unrelatedStage(moreDir, start, [cache, order, predicates], isSource, isTest)).toBeNull();
    expect(await unrelatedDefinitions(moreDir, start, [cache, order, predicates], isSource, isTest)).toBe(
      `stage 3 (${predicates.slice(0, 12)}) changes more.py::partition, older code no earlier stage changed, and none of more.py::remap`,
    );
  });

  it("is not a stage that changes what an earlier one changed, or that only adds a definition", async () => {
    expect(await unrelatedDefinitions(moreDir, start, [cache, order], isSource, isTest)).toBeNull();
    expect(await unrelatedDefinitions(moreDir, order, [predicates, helper], isSource, isTest)).toBeNull();
  });
});
