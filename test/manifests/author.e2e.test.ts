import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testFileMatcher } from "../../src/dataset/file-rules.js";
import { upstreamDigestsOf } from "../../src/manifests/derive.js";
import { cli } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { tempDir } from "../helpers/temp.js";
import { skipWithout } from "../helpers/tools.js";
import { git, writeFiles } from "../verify/fixture.js";

const root = tempDir("switch-swe-author-");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const env = { SWITCH_SWE_CACHE: join(root, "cache") };
const T = "calc-ops";
const original = join(root, "original.json");
const h = gitHistory(root, "calc");
const repoArg = () => `calc=${h.repo}`;

const ops1 = "def add(a, b):\n    return a + b\n";
const ops2 = `${ops1}\n\nNEGATIVE_OK = True\n\n\ndef sub(a, b):\n    return a - b\n`;
const mul = "\n\ndef mul(a, b):\n    return a * b\n";
const tests0 = "from calc.ops import add\n\n\ndef test_old():\n    assert add(1, 0) == 1\n";
const tests1 = `${tests0}\n\ndef test_add():\n    assert add(2, 3) == 5\n`;
const tests2 = `${tests1}\n\ndef test_sub():\n    from calc.ops import sub\n    assert sub(3, 2) == 1\n`;

/** A diff of the working tree after writing `files`, which are then taken back. */
function diffOf(files: Record<string, string>): string {
  writeFiles(h.repo, files);
  git(h.repo, "add", "-AN");
  const d = git(h.repo, "diff", "--full-index");
  git(h.repo, "reset", "-q");
  git(h.repo, "checkout", "-q", "--", ".");
  git(h.repo, "clean", "-qfd");
  return d;
}

const file = (name: string, text: string) => {
  writeFileSync(join(root, name), text);
  return join(root, name);
};
const copy = (name: string) => {
  copyFileSync(original, join(root, name));
  return join(root, name);
};
const author = (manifest: string, extra: string[], e = env) =>
  cli(
    [
      "datasets",
      "author",
      manifest,
      "--task",
      T,
      "--repo",
      repoArg(),
      "--text",
      join(root, "text.txt"),
      "--patch",
      join(root, "mul.patch"),
      "--tests",
      join(root, "mul-tests.patch"),
      ...extra,
    ],
    { env: e },
  );

/** Two upstream stages (add fixed, then sub and a flag); a later commit changes only the README. */
beforeAll(async () => {
  h.init();
  const base = h.commit("base", {
    "calc/__init__.py": "",
    "calc/ops.py": "def add(a, b):\n    return a - b\n",
    "tests/test_ops.py": tests0,
  });
  const c1 = h.commit("fix add", { "calc/ops.py": ops1, "tests/test_ops.py": tests1 });
  const c2 = h.commit("sub", { "calc/ops.py": ops2, "tests/test_ops.py": tests2 });
  h.commit("readme", { "README.md": "calc\n" });
  const tests = ["**/tests/**"];
  const digests = await upstreamDigestsOf(join(h.repo, ".git"), base, [c1, c2], testFileMatcher({ tests }));
  const stage = (cut: string, text: string, id: string, k: number) => ({
    cut,
    provenance: `commit ${cut}`,
    text,
    tests: [id],
    patch_sha256: digests.stages[k],
  });
  const id = (n: string) => `tests/test_ops.py::${n}`;
  const manifest = {
    format: "switch-swe.task-manifest/2",
    name: "calc",
    version: "1",
    repos: { calc: { git: "https://example.org/calc.git", source: { include: ["**/*.py"], exclude: tests }, tests } },
    tasks: [
      {
        id: T,
        repo: "calc",
        base,
        provenance: "chain of commits",
        stages: [
          stage(c1, "add(2, 3) should return 5.", id("test_add"), 0),
          stage(c2, "Add sub(): sub(3, 2) should return 1.", id("test_sub"), 1),
        ],
        tests_patch_sha256: digests.tests,
        verifier: { fail_to_pass: [id("test_add"), id("test_sub")], pass_to_pass: [id("test_old")] },
      },
    ],
  };
  writeFileSync(original, JSON.stringify(manifest, null, 2));
  file("text.txt", "Add mul(a, b) beside add(): mul(2, 3) should return 6.\n");
  file("mul.patch", diffOf({ "calc/ops.py": ops2 + mul }));
  file("mul-tests.patch", diffOf({ "tests/test_mul.py": "from calc.ops import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n" }));
});

const missingTool = skipWithout(import.meta.url, "bwrap");
describe.skipIf(missingTool)("datasets author", () => {
  it(
    "appends the authored stage with the F2P tests its runs find; the manifest materializes; a second one is refused",
    { timeout: 300_000 },
    () => {
      const m = copy("authored.json");
      const r = author(m, ["--after", "2"]);
      expect(r.stderr).toBe("");
      expect(r.stdout).toMatch(
        new RegExp(
          `^${T}: stage 3 authored after stage 2: 1 F2P test\\(s\\), tests/test_mul.py::test_mul; newest commit [0-9a-f]{12} not judged: it has not changed calc/ops.py since the task's last stage; ${m} rewritten; qualify the task again \\(tasks qualify --runs 3\\)\\n$`,
        ),
      );
      expect(r.code).toBe(0);
      const t = JSON.parse(readFileSync(m, "utf8")).tasks[0];
      expect(t.stages[2]).toMatchObject({
        provenance: "benchmark-authored",
        text: "Add mul(a, b) beside add(): mul(2, 3) should return 6.",
        tests: ["tests/test_mul.py::test_mul"],
        patch: readFileSync(join(root, "mul.patch"), "utf8"),
      });
      expect(t.verifier.fail_to_pass).toContain("tests/test_mul.py::test_mul");
      expect(cli(["datasets", "materialize", m, "--out", join(root, "materialized"), "--repo", repoArg()], { env }).code).toBe(0);
      const again = author(m, ["--after", "3"]);
      expect(again.stderr).toBe(`${m}: tasks[0].stages[2]: ${T} already has an authored stage (stage 3): at most one per task\n`);
      expect(again.code).toBe(2);
    },
  );

  it(
    "bad input is one line, exit 2, the manifest unchanged: K out of range or not the last stage, a missing file, a patch that does not apply, no F2P",
    { timeout: 300_000 },
    () => {
      const m = copy("bad.json");
      const before = readFileSync(m, "utf8");
      const one = (extra: string[]) => {
        const r = author(m, extra);
        expect(r.code, r.stdout + r.stderr).toBe(2);
        expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
        expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
        return r.stderr;
      };
      expect(one(["--after", "3"])).toBe(`${m}: tasks[0].stages: ${T} has 2 stage(s): --after 3 is none of them\n`);
      expect(one(["--after", "1"])).toBe(
        `${m}: tasks[0].stages: ${T}: stage 2 is upstream and an authored stage comes after every upstream stage: --after 2\n`,
      );
      expect(one(["--after", "2", "--text", join(root, "none.txt")])).toBe(`${join(root, "none.txt")}: --text: no such file\n`);
      file("stale.patch", readFileSync(join(root, "mul.patch"), "utf8").replace("    return a - b\n", "    return b - a\n"));
      expect(one(["--after", "2", "--patch", join(root, "stale.patch")])).toMatch(
        new RegExp(
          `^${join(root, "stale.patch")}: --patch: the authored patch does not apply: error: patch failed: calc/ops.py:\\d+; .*, after stage 2\n$`,
        ),
      );
      file(
        "old-tests.patch",
        diffOf({ "tests/test_more.py": "from calc.ops import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n" }),
      );
      expect(one(["--after", "2", "--tests", join(root, "old-tests.patch")])).toMatch(
        /--tests: no test fails at the base and after stage 2 and passes with the patch\n$/,
      );
      expect(readFileSync(m, "utf8")).toBe(before);
    },
  );

  it(
    "refuses a patch that takes back an upstream line, and tests that fail at a newest commit still holding the code: exit 1, nothing written",
    { timeout: 300_000 },
    () => {
      const m = copy("contradicts.json");
      const before = readFileSync(m, "utf8");
      file("flip.patch", diffOf({ "calc/ops.py": ops2.replace("NEGATIVE_OK = True", "NEGATIVE_OK = False") + mul }));
      const r = author(m, ["--after", "2", "--patch", join(root, "flip.patch")]);
      expect(r.stdout).toContain(
        `${T}: stage 3: authored-contradicted: the authored stage takes back what an upstream stage of the task added, "NEGATIVE_OK = True" becomes "NEGATIVE_OK = False"`,
      );
      expect(r.stdout).toContain(`${T}: stage 3 not written: it contradicts the repository's history; ${m} unchanged`);
      expect(r.code).toBe(1);
      expect(readFileSync(m, "utf8")).toBe(before);
      // Upstream later reworks ops.py and still has no mul(): the authored test fails at its newest commit.
      h.commit("rework ops", { "calc/ops.py": `# arithmetic\n${ops2}` });
      const newest = author(m, ["--after", "2"], { SWITCH_SWE_CACHE: join(root, "cache-newest") });
      expect(newest.stdout).toMatch(
        new RegExp(
          `^${T}: stage 3: authored-contradicted: the authored tests fail at the repository's newest commit [0-9a-f]{12}, which still has the code the patch touches: upstream decided otherwise, tests/test_mul.py::test_mul$`,
          "m",
        ),
      );
      expect(newest.code).toBe(1);
      expect(readFileSync(m, "utf8")).toBe(before);
    },
  );
});
