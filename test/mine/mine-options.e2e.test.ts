import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { git, tempDir } from "../verify/fixture.js";
import { skipWithout } from "../helpers/tools.js";

// Needs bwrap: skipped with the reason where missing (a failure under CI=true).
const missingTool = skipWithout(import.meta.url, "bwrap");

const root = tempDir("switch-swe-mine-options-");
const { repo, init, commit } = gitHistory(root, "mirror-dir");

/**
 * Two chains of two commits each, in different directories. The first step of the first chain
 * also fixes a bug that a test module the chain does not touch (tests/test_known_bug.py) already
 * tests: the whole suite counts that test as the stage's F2P, the touched files do not.
 */
beforeAll(() => {
  init();
  commit("Initial layout", {
    "pkg/__init__.py": "",
    "pkg/num/ops.py": "def add(a, b):\n    return int(a) + int(b)\n",
    "pkg/text/fmt.py": "def pad(s):\n    return s\n",
    "tests/test_known_bug.py": "from pkg.num.ops import add\n\n\ndef test_add_floats():\n    assert add(0.5, 0.25) == 0.75\n",
  });
  commit("ops: subtraction", {
    "pkg/num/ops.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    "tests/test_ops.py": "from pkg.num.ops import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n",
  });
  commit("ops: multiplication", {
    "pkg/num/ops.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
    "tests/test_ops.py":
      "from pkg.num.ops import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n\n\ndef test_mul():\n    from pkg.num.ops import mul\n    assert mul(2, 3) == 6\n",
  });
  commit("Release notes", { NEWS: "1.1\n" });
  commit("fmt: pad to width", {
    "pkg/text/fmt.py": "def pad(s, n=0):\n    return s.ljust(n)\n",
    "tests/test_fmt.py": "from pkg.text.fmt import pad\n\n\ndef test_pad():\n    assert pad('a', 3) == 'a  '\n",
  });
  commit("fmt: pad with a fill character", {
    "pkg/text/fmt.py": "def pad(s, n=0, fill=' '):\n    return s.ljust(n, fill)\n",
    "tests/test_fmt.py":
      "from pkg.text.fmt import pad\n\n\ndef test_pad():\n    assert pad('a', 3) == 'a  '\n\n\ndef test_fill():\n    assert pad('a', 3, '.') == 'a..'\n",
  });
});

describe.skipIf(missingTool)("tasks mine --suite touched --url --setup-commit", () => {
  it("the whole suite (the default) finds F2P tests in files the steps do not touch", { timeout: 300_000 }, () => {
    const out = join(root, "whole");
    const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "1"], { env: { SWITCH_SWE_CACHE: join(root, "cache-whole") } });
    expect(r.stdout).toMatch(/2 candidate\(s\): 2 mined, 0 rejected; /);
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(Object.keys(manifest.repos)).toEqual(["mirror-dir"]);
    expect(manifest.tasks[0].stages[0].tests).toEqual(["tests/test_known_bug.py::test_add_floats", "tests/test_ops.py::test_sub"]);
  });

  it(
    "runs only the touched test files, records the URL and one shared environment; two jobs keep the history's order",
    { timeout: 300_000 },
    () => {
      const cache = join(root, "cache-touched");
      const out = join(root, "touched");
      const url = "https://example.org/team/calc.git";
      const r = cli(
        [
          "tasks",
          "mine",
          repo,
          "--out",
          out,
          "--runs",
          "1",
          "--suite",
          "touched",
          "--url",
          url,
          "--setup-commit",
          "main~1",
          "--setup",
          'mkdir -p "$SWITCH_SWE_ENV/bin"',
          "--timeout-s",
          "600",
          "--jobs",
          "2",
        ],
        { env: { SWITCH_SWE_CACHE: cache } },
      );
      expect(r.stdout).toMatch(/2 candidate\(s\): 2 mined, 0 rejected; /);
      expect(r.code).toBe(0);
      const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
      expect(Object.keys(manifest.repos)).toEqual(["calc"]);
      expect(manifest.repos.calc.git).toBe(url);
      expect(manifest.repos.calc.environment.setup_commit).toBe(git(repo, "rev-parse", "main~1").trim());
      expect(manifest.tasks.map((t: { stages: Array<{ tests: string[] }> }) => t.stages.map((s) => s.tests))).toEqual([
        [["tests/test_ops.py::test_sub"], ["tests/test_ops.py::test_mul"]],
        [["tests/test_fmt.py::test_pad"], ["tests/test_fmt.py::test_fill"]],
      ]);
      expect(manifest.tasks.map((t: { verifier: { timeout_s: number } }) => t.verifier.timeout_s)).toEqual([600, 600]);
      // Two candidates with different bases, one environment (a directory; its seal lies beside it).
      const envs = readdirSync(join(cache, "envs"), { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith("."));
      expect(envs).toHaveLength(1);
    },
  );

  it("--path keeps the candidates of one subsystem and refuses a directory the range's end does not have", { timeout: 300_000 }, () => {
    const env = { SWITCH_SWE_CACHE: join(root, "cache-path") };
    const out = join(root, "path");
    const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "1", "--suite", "touched", "--path", "pkg/text/"], { env });
    expect(r.stdout).toMatch(/1 candidate\(s\): 1 mined, 0 rejected; /);
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(manifest.tasks.map((t: { stages: Array<{ tests: string[] }> }) => t.stages.map((s) => s.tests))).toEqual([
      [["tests/test_fmt.py::test_pad"], ["tests/test_fmt.py::test_fill"]],
    ]);
    expect(JSON.parse(readFileSync(join(out, "mine-report.json"), "utf8")).settings.paths).toEqual(["pkg/text/"]);
    // Resumed with another --path (it only chooses candidates): the other chain is added.
    const more = cli(["tasks", "mine", repo, "--out", out, "--runs", "1", "--suite", "touched", "--path", "pkg"], { env });
    expect(more.stdout).toMatch(/2 candidate\(s\): 2 mined, 0 rejected; /);
    const bad = cli(["tasks", "mine", repo, "--out", join(root, "path-bad"), "--path", "pkg/txt", "--path", "pkg/num/ops.py"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/: --path: "pkg\/txt" is not a directory at [0-9a-f]{12}, the newest commit of the range$/),
      expect.stringMatching(/: --path: "pkg\/num\/ops.py" is not a directory at [0-9a-f]{12}, the newest commit of the range$/),
    ]);
  });

  it(
    "--known skips the candidates a manifest already holds, and refuses a missing manifest or one of another repository",
    { timeout: 300_000 },
    () => {
      const env = { SWITCH_SWE_CACHE: join(root, "cache-known") };
      const shipped = join(root, "known-shipped");
      expect(cli(["tasks", "mine", repo, "--out", shipped, "--runs", "1", "--suite", "touched", "--path", "pkg/text/"], { env }).code).toBe(
        0,
      );
      const shippedManifest = JSON.parse(readFileSync(join(shipped, "manifest.json"), "utf8"));
      const out = join(root, "known");
      const r = cli(["tasks", "mine", repo, "--out", out, "--runs", "1", "--suite", "touched", "--known", join(shipped, "manifest.json")], {
        env,
      });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("1 candidate(s) already held by --known manifests: not qualified again");
      expect(r.stdout).toMatch(/2 candidate\(s\): 1 mined, 0 rejected, 1 already known; /);
      const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
      expect(manifest.tasks.map((t: { stages: Array<{ tests: string[] }> }) => t.stages.map((s) => s.tests))).toEqual([
        [["tests/test_ops.py::test_sub"], ["tests/test_ops.py::test_mul"]],
      ]);
      const report = JSON.parse(readFileSync(join(out, "mine-report.json"), "utf8"));
      expect(report.known).toEqual([
        { candidate: shippedManifest.tasks[0].provenance, task: shippedManifest.tasks[0].id, manifest: join(shipped, "manifest.json") },
      ]);
      // Another repository's manifest, and a path that is no file: one line each, exit 2, nothing mined.
      const other = join(root, "known-other.json");
      writeFileSync(
        other,
        JSON.stringify({
          ...shippedManifest,
          repos: {
            [Object.keys(shippedManifest.repos)[0]!]: { ...Object.values(shippedManifest.repos)[0]!, git: "https://example.org/other.git" },
          },
        }),
      );
      const bad = cli(["tasks", "mine", repo, "--out", join(root, "known-bad"), "--known", other, "--known", join(root, "nope.json")], {
        env,
      });
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split("\n")).toEqual([
        `${other}: tasks: no task of ${repo}: --known takes a manifest of the repository being mined`,
        `${join(root, "nope.json")}: not found (--known takes a manifest.json)`,
      ]);
    },
  );

  it("refuses a set-up revision the repository does not have, in one line (exit 2)", () => {
    const r = cli(["tasks", "mine", repo, "--out", join(root, "bad"), "--setup-commit", "nope"], {
      env: { SWITCH_SWE_CACHE: join(root, "cache-bad") },
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/: --setup-commit: "nope" is not a commit of this repository$/);
  });
});

describe.skipIf(missingTool)("a mining run stopped early", () => {
  const out = join(root, "resumed");
  const env = { SWITCH_SWE_CACHE: join(root, "cache-resumed") };
  const mine = (...extra: string[]) => cli(["tasks", "mine", repo, "--out", out, "--runs", "1", "--suite", "touched", ...extra], { env });

  it("resumes on its own --out: finished candidates are not qualified again", { timeout: 300_000 }, () => {
    const first = mine("--max", "1");
    expect(first.stdout).toMatch(/2 candidate\(s\): 1 mined, 0 rejected; /);
    const firstTask = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")).tasks[0].id as string;
    const second = mine();
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(`resuming ${out}: 1 mined and 0 rejected before, 1 left`);
    expect(second.stderr).not.toContain(`mined ${firstTask}:`);
    expect(second.stdout).toMatch(/2 candidate\(s\): 2 mined, 0 rejected; /);
    const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
    expect(manifest.tasks.map((t: { id: string }) => t.id)[0]).toBe(firstTask);
    expect(readdirSync(join(out, "tasks")).sort()).toEqual(manifest.tasks.map((t: { id: string }) => t.id).sort());
  });

  it("refuses to resume with other options, one line per difference (exit 2), and leaves the run as it was", () => {
    const before = readFileSync(join(out, "mine-report.json"), "utf8");
    const r = mine("--runs", "2", "--timeout-s", "60");
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toEqual([
      `${join(out, "mine-report.json")}: settings.runs: this run used 1, not 2: resume with the options it was started with, or mine into a new --out`,
      `${join(out, "mine-report.json")}: settings.timeout_s: this run used 1800, not 60: resume with the options it was started with, or mine into a new --out`,
    ]);
    expect(readFileSync(join(out, "mine-report.json"), "utf8")).toBe(before);
  });

  it("refuses a non-empty --out that holds no mining run (exit 2)", () => {
    const r = cli(["tasks", "mine", repo, "--out", join(root, "mirror-dir")], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `${join(root, "mirror-dir")}: the output directory is not empty and holds no mining run to resume (no mine-report.json)`,
    );
  });
});

describe.skipIf(missingTool)("a test that hangs before the fix", () => {
  const hang = gitHistory(root, "hang");
  beforeAll(() => {
    hang.init();
    hang.commit("Initial layout", {
      "spin/__init__.py": "",
      "spin/wait.py": "def settle():\n    while True:\n        pass\n",
      "tests/test_base.py": "def test_base():\n    assert True\n",
    });
    hang.commit("settle: stop spinning", {
      "spin/wait.py": "def settle():\n    return 1\n",
      "tests/test_wait.py": "from spin.wait import settle\n\n\ndef test_settle():\n    assert settle() == 1\n",
    });
    hang.commit("settle: take a count", {
      "spin/wait.py": "def settle(n=1):\n    return n\n",
      "tests/test_wait.py":
        "from spin.wait import settle\n\n\ndef test_settle():\n    assert settle() == 1\n\n\ndef test_count():\n    assert settle(3) == 3\n",
    });
  });

  it("is rejected as timed out after --timeout-s, not as a collection failure", { timeout: 300_000 }, () => {
    const out = join(root, "hang-out");
    const r = cli(["tasks", "mine", hang.repo, "--out", out, "--runs", "1", "--suite", "touched", "--timeout-s", "20"], {
      env: { SWITCH_SWE_CACHE: join(root, "cache-hang") },
    });
    expect(r.stdout).toMatch(/1 candidate\(s\): 0 mined, 1 rejected \(1 timed out\)/);
    const report = JSON.parse(readFileSync(join(out, "mine-report.json"), "utf8"));
    expect(report.rejected).toEqual([expect.objectContaining({ reason: "timed out", detail: "after 0 stage(s): timed out" })]);
  });
});

describe.skipIf(missingTool)("--test-glob: a capitalised test tree with fixture files", () => {
  const fonts = gitHistory(root, "fonts");
  beforeAll(() => {
    fonts.init();
    fonts.commit("Initial layout", {
      "Lib/glyphs/__init__.py": "",
      "Lib/glyphs/names.py": "def name(code):\n    return 'uni%04X' % code\n",
      "Tests/names_test.py": "from glyphs.names import name\n\n\ndef test_uni():\n    assert name(65) == 'uni0041'\n",
    });
    fonts.commit("names: read the agl list", {
      "Lib/glyphs/names.py":
        "import os\n\n\ndef name(code, table=None):\n    if table and code in table:\n        return table[code]\n    return 'uni%04X' % code\n",
      "Tests/data/agl.txt": "0041 A\n",
      "Tests/names_test.py":
        "import os\nfrom glyphs.names import name\n\nHERE = os.path.dirname(__file__)\n\n\ndef table():\n    with open(os.path.join(HERE, 'data', 'agl.txt')) as f:\n        return {int(c, 16): n for c, n in (l.split() for l in f)}\n\n\ndef test_uni():\n    assert name(65) == 'uni0041'\n\n\ndef test_agl():\n    assert name(65, table()) == 'A'\n",
    });
    fonts.commit("names: fall back to u+ for astral codes", {
      "Lib/glyphs/names.py":
        "import os\n\n\ndef name(code, table=None):\n    if table and code in table:\n        return table[code]\n    return ('uni%04X' if code <= 0xFFFF else 'u%05X') % code\n",
      "Tests/data/astral.txt": "1F600\n",
      "Tests/names_test.py":
        "import os\nfrom glyphs.names import name\n\nHERE = os.path.dirname(__file__)\n\n\ndef table():\n    with open(os.path.join(HERE, 'data', 'agl.txt')) as f:\n        return {int(c, 16): n for c, n in (l.split() for l in f)}\n\n\ndef test_uni():\n    assert name(65) == 'uni0041'\n\n\ndef test_agl():\n    assert name(65, table()) == 'A'\n\n\ndef test_astral():\n    with open(os.path.join(HERE, 'data', 'astral.txt')) as f:\n        code = int(f.read().strip(), 16)\n    assert name(code) == 'u1F600'\n",
    });
  });

  it(
    "puts the fixtures in tests.patch, not in a stage's patch, records the globs, and refuses an absolute one",
    { timeout: 300_000 },
    () => {
      const env = { SWITCH_SWE_CACHE: join(root, "cache-fonts") };
      const out = join(root, "fonts-out");
      const testCommand = "PYTHONPATH=Lib python3 -m pytest -rA -p no:cacheprovider --junitxml={junit} {tests}";
      const r = cli(
        [
          "tasks",
          "mine",
          fonts.repo,
          "--out",
          out,
          "--runs",
          "1",
          "--suite",
          "touched",
          "--test-command",
          testCommand,
          "--test-glob",
          "Tests/**",
        ],
        { env },
      );
      expect(r.stdout).toMatch(/1 candidate\(s\): 1 mined, 0 rejected; /);
      const manifest = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
      const repoEntry = manifest.repos.fonts;
      expect(repoEntry.tests).toContain("Tests/**");
      expect(repoEntry.source.exclude).toContain("Tests/**");
      const task = manifest.tasks[0];
      expect(task.stages.map((s: { tests: string[] }) => s.tests)).toEqual([
        ["Tests/names_test.py::test_agl"],
        ["Tests/names_test.py::test_astral"],
      ]);
      const dir = join(out, "tasks", task.id);
      const stagePatches = readdirSync(dir)
        .filter((f) => /^stage-\d+\.patch$/.test(f))
        .map((f) => readFileSync(join(dir, f), "utf8"))
        .join("\n");
      expect(stagePatches).not.toContain("Tests/data/");
      expect(stagePatches).toContain("Lib/glyphs/names.py");
      const testsPatch = readFileSync(join(dir, "tests.patch"), "utf8");
      expect(testsPatch).toContain("b/Tests/data/agl.txt");
      expect(testsPatch).toContain("b/Tests/data/astral.txt");
      expect(JSON.parse(readFileSync(join(out, "mine-report.json"), "utf8")).settings.test_globs).toEqual(["Tests/**"]);
      // Resuming with other test globs would judge the rest differently: refused.
      const other = cli(["tasks", "mine", fonts.repo, "--out", out, "--runs", "1", "--suite", "touched", "--test-command", testCommand], {
        env,
      });
      expect(other.code).toBe(2);
      expect(other.stderr.trim()).toBe(
        `${join(out, "mine-report.json")}: settings.test_globs: this run used ["Tests/**"], not []: resume with the options it was started with, or mine into a new --out`,
      );
      const bad = cli(["tasks", "mine", fonts.repo, "--out", join(root, "fonts-bad"), "--test-glob", "/Tests/**"], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim()).toMatch(
        /--test-glob takes a glob relative to the repository root, such as 'Tests\/\*\*', got "\/Tests\/\*\*"/,
      );
    },
  );
});
