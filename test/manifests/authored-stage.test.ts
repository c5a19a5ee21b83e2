import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256 } from "../../src/core/digest.js";
import { defaultSourceExclude, defaultSourceInclude, defaultTestGlobs, testFileMatcher } from "../../src/dataset/file-rules.js";
import { stagePatchesOf, testsPatchOf } from "../../src/manifests/derive.js";
import { cli } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { git, tempDir } from "../verify/fixture.js";

/**
 * A small dataset whose one task has two upstream stages (commits of a history) and one
 * benchmark-authored stage (our own request, reference patch and regression tests, stored in the
 * manifest): it materializes, validates and qualifies like any task, and a malformed authored stage
 * or alignment map is refused one line each.
 */
const root = tempDir("switch-swe-authored-");
const env = { SWITCH_SWE_CACHE: join(root, "cache") };
const { repo, init, commit } = gitHistory(root, "shapes");
const manifestFile = join(root, "manifest.json");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const testCommand = "PYTHONPATH=. python3 -m pytest -rA -p no:cacheprovider --junitxml={junit} {tests}";
const repoEntry = {
  git: repo,
  source: { include: defaultSourceInclude, exclude: defaultSourceExclude },
  tests: defaultTestGlobs,
  environment: { test_command: testCommand },
};
const square = "def square(a):\n    return a * a\n";
const rect = `${square}\n\ndef rect_area(width, height):\n    return width * height\n`;
const triangle = `${rect}\n\ndef triangle_area(base, height):\n    return base * height / 2\n`;
const circle = `import math\n\n\n${triangle}\n\ndef circle_area(radius):\n    return math.pi * radius * radius\n`;
const circleTest = "import math\n\nfrom shapes.area import circle_area\n\n\ndef test_circle():\n    assert circle_area(2) == math.pi * 4\n";

/** The authored stage's two patches: written on a side branch that is deleted again, so no clone of the repository has them. */
function authoredPatches(): { patch: string; testsPatch: string } {
  git(repo, "checkout", "-q", "-b", "authored");
  const from = git(repo, "rev-parse", "HEAD").trim();
  const to = commit("authored", { "shapes/area.py": circle, "tests/test_circle.py": circleTest });
  const diff = (path: string) => git(repo, "diff", "--binary", "--full-index", "--no-renames", from, to, "--", path);
  const out = { patch: diff("shapes/area.py"), testsPatch: diff("tests/test_circle.py") };
  git(repo, "checkout", "-q", "main");
  git(repo, "branch", "-q", "-D", "authored");
  git(repo, "reflog", "expire", "--expire=now", "--all");
  git(repo, "gc", "-q", "--prune=now");
  return out;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
let manifest: any;

beforeAll(async () => {
  init();
  const base = commit("Initial layout", {
    "shapes/__init__.py": "",
    "shapes/area.py": square,
    "tests/test_square.py": "from shapes.area import square\n\n\ndef test_square():\n    assert square(3) == 9\n",
  });
  const c1 = commit("Add the area of a rectangle", {
    "shapes/area.py": rect,
    "tests/test_rect.py": "from shapes.area import rect_area\n\n\ndef test_rect():\n    assert rect_area(2, 3) == 6\n",
  });
  const c2 = commit("Add the area of a triangle", {
    "shapes/area.py": triangle,
    "tests/test_triangle.py": "from shapes.area import triangle_area\n\n\ndef test_triangle():\n    assert triangle_area(2, 3) == 3\n",
  });
  const { patch, testsPatch } = authoredPatches();
  const isTest = testFileMatcher(repoEntry);
  const gitDir = join(repo, ".git");
  const upstream = await stagePatchesOf(gitDir, base, [c1, c2], isTest);
  manifest = {
    format: "switch-swe.task-manifest/2",
    name: "shapes",
    version: "1",
    repos: { shapes: repoEntry },
    tasks: [
      {
        id: "shapes-1",
        repo: "shapes",
        base,
        provenance: "chain of 2 commits on shapes/",
        stages: [
          {
            cut: c1,
            text: "Please let me compute the area of a rectangle from its two sides.",
            provenance: `commit ${c1}`,
            tests: ["tests/test_rect.py::test_rect"],
            patch_sha256: sha256(upstream[0]!),
          },
          {
            cut: c2,
            text: "I also need the area of a triangle, from a base and a height.",
            provenance: `commit ${c2}`,
            tests: ["tests/test_triangle.py::test_triangle"],
            patch_sha256: sha256(upstream[1]!),
          },
          {
            text: "Circles too, please: their area from the radius.",
            provenance: "benchmark-authored",
            tests: ["tests/test_circle.py::test_circle"],
            patch,
            patch_sha256: sha256(patch),
            tests_patch: testsPatch,
            tests_patch_sha256: sha256(testsPatch),
          },
        ],
        tests_patch_sha256: sha256(await testsPatchOf(gitDir, base, c2, isTest)),
        verifier: {
          fail_to_pass: ["tests/test_rect.py::test_rect", "tests/test_triangle.py::test_triangle", "tests/test_circle.py::test_circle"],
          pass_to_pass: ["tests/test_square.py::test_square"],
          timeout_s: 300,
        },
      },
    ],
  };
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
}, 60_000);

const variant = (name: string, change: (m: typeof manifest) => void): string => {
  const m = structuredClone(manifest);
  change(m);
  const file = join(root, `${name}.json`);
  writeFileSync(file, JSON.stringify(m, null, 2));
  return file;
};

describe("a benchmark-authored stage", () => {
  it("materializes after the upstream stages, validates and qualifies like any stage", () => {
    const out = join(root, "dataset");
    const m = cli(["datasets", "materialize", manifestFile, "--out", out], { env });
    expect(m.stderr).toBe("");
    expect(m.code).toBe(0);
    const dir = join(out, "tasks", "shapes-1");
    const task = JSON.parse(readFileSync(join(dir, "task.json"), "utf8"));
    expect(task.requests.map((r: { provenance: string }) => r.provenance)).toEqual([
      manifest.tasks[0].stages[0].provenance,
      manifest.tasks[0].stages[1].provenance,
      "benchmark-authored",
    ]);
    expect(task.requests[2].tests).toEqual(["tests/test_circle.py::test_circle"]);
    expect(readFileSync(join(dir, "stage-3.patch"), "utf8")).toBe(manifest.tasks[0].stages[2].patch);
    const tests = readFileSync(join(dir, "tests.patch"), "utf8");
    expect(tests).toContain("tests/test_triangle.py");
    expect(tests.endsWith(manifest.tasks[0].stages[2].tests_patch)).toBe(true);

    const v = cli(["tasks", "validate", out], { env });
    expect(v.stderr).toBe("");
    expect(v.code).toBe(0);
    const q = cli(["tasks", "qualify", out, "--runs", "1", "--json"], { env });
    expect(q.code, q.stderr).toBe(0);
    const report = JSON.parse(q.stdout)[0] ?? JSON.parse(q.stdout).reports[0];
    expect(report.qualified).toBe(true);
    expect([...report.observed.fail_to_pass].sort()).toEqual([...manifest.tasks[0].verifier.fail_to_pass].sort());
  }, 240_000);

  it("refuses an authored stage that mixes with upstream, lacks its tests or its digest, or comes first; one line each, exit 2", () => {
    const bad = variant("bad-authored", (m) => {
      const [s1, , s3] = m.tasks[0].stages;
      s3.cut = s1.cut;
      s3.patch_sha256 = "0".repeat(64);
      delete s3.tests_patch;
      const first = structuredClone(m.tasks[0]);
      first.id = "shapes-2";
      first.stages = [s3, ...first.stages.slice(0, 2)];
      m.tasks.push(first);
    });
    const r = cli(["datasets", "materialize", bad, "--out", join(root, "bad")], { env });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toContain(`${bad}: tasks[0].stages[2].cut: an authored stage has no upstream commit`);
    expect(lines).toContain(`${bad}: tasks[0].stages[2].tests_patch: an authored stage needs its own regression tests`);
    expect(lines.some((l) => l.startsWith(`${bad}: tasks[0].stages[2].patch_sha256: does not match the patch`))).toBe(true);
    expect(lines).toContain(
      `${bad}: tasks[1].stages[0].provenance: authored stages extend an upstream task: the first stage comes from the repository's history`,
    );
    expect(lines).toContain(
      `${bad}: tasks[1].stages[1].provenance: an upstream stage after the authored stage 1: authored stages come last`,
    );
    expect(r.stderr).not.toContain("    at ");
  });

  it("refuses an F2P test mapped to no stage and a map naming a test that is not F2P, in the manifest", () => {
    const bad = variant("bad-map", (m) => {
      m.tasks[0].stages[0].tests = ["tests/test_square.py::test_square"];
    });
    const r = cli(["datasets", "materialize", bad, "--out", join(root, "bad-map-out")], { env });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n").sort()).toEqual([
      `${bad}: tasks[0].stages[0].tests: tests/test_square.py::test_square is not in verifier.fail_to_pass`,
      `${bad}: tasks[0].verifier.fail_to_pass: tests/test_rect.py::test_rect is mapped to no stage (list it in the tests of the stage whose request asks for it)`,
    ]);
  });

  it("refuses an authored stage's patch that changes a test file", () => {
    const bad = variant("test-in-patch", (m) => {
      const s3 = m.tasks[0].stages[2];
      s3.patch = s3.tests_patch;
      s3.patch_sha256 = sha256(s3.patch);
    });
    const r = cli(["datasets", "materialize", bad, "--out", join(root, "test-in-patch-out")], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `${bad}: tasks[0].stages[2].patch: shapes-1: changes the test file tests/test_circle.py (an authored stage's tests go in its tests_patch)\n`,
    );
  });
});
