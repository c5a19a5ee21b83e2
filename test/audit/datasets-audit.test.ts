import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256 } from "../../src/core/digest.js";
import { testFileMatcher } from "../../src/dataset/file-rules.js";
import { auditReportSchema } from "../../src/formats/audit.js";
import { upstreamDigestsOf } from "../../src/manifests/derive.js";
import { cli } from "../helpers/cli.js";
import { gitHistory } from "../helpers/git-history.js";
import { tempDir } from "../helpers/temp.js";
import { skipWithout } from "../helpers/tools.js";
import { git } from "../verify/fixture.js";

const root = tempDir("switch-swe-audit-");
afterAll(() => rmSync(root, { recursive: true, force: true }));
const env = { SWITCH_SWE_CACHE: join(root, "cache") };
const T = "calc-add";
const file = join(root, "manifest.json");
const repoArg = () => `calc=${join(root, "calc")}`;

const oldTests = "from calc.ops import add\n\n\ndef test_old():\n    assert add(1, 0) == 1\n";
const newTests = `${oldTests}\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_broken():\n    assert add(2, 2) == 4\n\n\ndef test__clamp():\n    from calc.ops import _clamp\n    assert callable(_clamp)\n`;
const writer = {
  status: "written",
  model: "openai:writer",
  prompt_sha256: "0".repeat(64),
  prompt_version: "1",
  at: "2026-12-07T00:00:00Z",
  attempts: 1,
};
const clamp = "\n\ndef _clamp(x):\n    if x < 0:\n        return 0\n    return x\n";

/**
 * A real history: stage 1 fixes add() and adds a private helper, stage 2 only adds a comment; an
 * authored stage 3 (mul(), with its own test) turns stage 1's condition into its opposite. The two
 * commits name different pull requests: several features.
 */
beforeAll(async () => {
  const h = gitHistory(root, "calc");
  h.init();
  const base = h.commit("base", {
    "calc/__init__.py": "",
    "calc/ops.py": "def add(a, b):\n    return a - b\n",
    "tests/test_ops.py": oldTests,
  });
  const c1 = h.commit("fix add (#1)", { "calc/ops.py": `def add(a, b):\n    return a + b\n${clamp}`, "tests/test_ops.py": newTests });
  const c2 = h.commit("comment (#2)", { "calc/ops.py": `# adds two numbers\ndef add(a, b):\n    return a + b\n${clamp}` });
  const c3 = h.commit("authored", {
    "calc/ops.py": `# adds two numbers\ndef add(a, b):\n    return a + b\n${clamp.replace("x < 0", "x >= 0")}\n\ndef mul(a, b):\n    return a * b\n`,
    "tests/test_extra.py": "from calc.ops import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
  });
  const tests = ["**/tests/**"];
  const digests = await upstreamDigestsOf(join(h.repo, ".git"), base, [c1, c2], testFileMatcher({ tests }));
  const patch = git(h.repo, "diff", "--full-index", c2, c3, "--", "calc/ops.py");
  const testsPatch = git(h.repo, "diff", "--full-index", c2, c3, "--", "tests/test_extra.py");
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
          {
            cut: c1,
            provenance: `commit ${c1}`,
            text: "Make add() add its operands instead of subtracting them.\n\nCo-authored-by: Ann <ann@example.org>",
            reviewed_by: { reader: "bob", note: "asks for what test_add checks" },
            tests: ["tests/test_ops.py::test_add"],
            patch_sha256: digests.stages[0],
          },
          {
            cut: c2,
            provenance: `commit ${c2}`,
            text: "Only combine when that saving is positive.",
            writer,
            reviewed_by: { reader: writer.model, note: "reads well" },
            tests: ["tests/test_ops.py::test__clamp"],
            patch_sha256: digests.stages[1],
          },
          {
            provenance: "benchmark-authored",
            text: "Add a mul() function that multiplies two numbers: mul(2, 3) returns 6.",
            patch,
            patch_sha256: sha256(patch),
            tests_patch: testsPatch,
            tests_patch_sha256: sha256(testsPatch),
            tests: ["tests/test_extra.py::test_mul"],
          },
        ],
        tests_patch_sha256: digests.tests,
        verifier: {
          fail_to_pass: ["tests/test_ops.py::test_add", "tests/test_ops.py::test__clamp", "tests/test_extra.py::test_mul"],
          pass_to_pass: ["tests/test_ops.py::test_old", "tests/test_ops.py::test_broken"],
        },
      },
    ],
  };
  writeFileSync(file, JSON.stringify(manifest, null, 2));
});

const staticLines = [
  `${T}: stage 1: commit-text: the text holds trailer lines, "Co-authored-by: Ann <ann@example.org>"`,
  `${T}: stage 1: commit-text: the text holds e-mail addresses, "ann@example.org"`,
  `${T}: stage 2: unreviewed (warning): the text was read by the writer model that wrote it, not independently, reviewed_by.reader and writer.model are both openai:writer`,
  `${T}: stage 2: leak (warning): a sentence prescribes how without an observable input and result, "Only combine when that saving is positive.": condition "Only combine when", comparison "is positive"`,
  `${T}: stage 2: f2p-elsewhere: 1 F2P test(s) named for a private function: they measure an internal name, not what the request asks, tests/test_ops.py::test__clamp`,
  `${T}: stage 3: unreviewed (warning): no second, independent reading of the request text is recorded, stages[].reviewed_by is absent`,
];

describe("datasets audit", () => {
  it("static, manifest only: texts and test names; exit 1 on errors; the summary line", () => {
    const r = cli(["datasets", "audit", file], { env });
    expect(r.stderr).toBe("");
    expect(r.stdout.split("\n").filter((l) => l !== "")).toEqual([
      ...staticLines,
      "1 task(s), 3 stage(s): 3 error(s), 3 warning(s) (f2p-elsewhere 1, leak 1, commit-text 2, unreviewed 2); manifests only (no --repo: patch checks skipped)",
    ]);
    expect(r.code).toBe(1);
  });

  it("static with --repo: no-behaviour stage, authored stage contradicting upstream, a private name the stage defines; JSON switch-swe.audit/1", () => {
    const r = cli(["datasets", "audit", file, "--repo", repoArg()], { env });
    const lines = r.stdout.split("\n");
    for (const l of staticLines) expect(lines).toContain(l);
    expect(lines).toContain(
      `${T}: stage 2: no-behaviour-stage: the stage changes no behaviour (documentation only), stage-2.patch read by the substance rules`,
    );
    expect(lines).toContain(
      `${T}: stage 2: f2p-elsewhere: 1 F2P test(s) use a private name the stages define: they measure an internal name, not behaviour, tests/test_ops.py::test__clamp uses _clamp`,
    );
    expect(lines).toContain(
      `${T}: stage 3: authored-contradicted: the authored stage takes back what an upstream stage of the task added, "if x < 0:" becomes "if x >= 0:"`,
    );
    expect(r.code).toBe(1);
    const j = cli(["datasets", "audit", file, "--repo", repoArg(), "--json"], { env });
    const report = auditReportSchema.parse(JSON.parse(j.stdout));
    expect(report.repos_read).toEqual(["calc"]);
    expect(r.stdout).toMatch(
      new RegExp(
        `^${T}: several-features: the steps name different pull requests or issues, stage commits [0-9a-f]{12} and [0-9a-f]{12} name different pull requests or issues \\(#1 / #2\\)$`,
        "m",
      ),
    );
    expect(report.summary.by_kind).toEqual({
      "no-behaviour-stage": 1,
      "f2p-elsewhere": 2,
      "several-features": 1,
      leak: 1,
      "commit-text": 2,
      "authored-contradicted": 1,
      unreviewed: 2,
    });
    expect(report.tasks[0]!.findings.filter((f) => f.severity === "warning").map((f) => f.kind)).toEqual([
      "unreviewed",
      "leak",
      "unreviewed",
    ]);
  });

  it("a task the repository cannot give is an env-failure of that task, and its manifest checks still run", () => {
    const m = JSON.parse(readFileSync(file, "utf8"));
    m.tasks[0].base = "0".repeat(40);
    const gone = join(root, "gone.json");
    writeFileSync(gone, JSON.stringify(m));
    const r = cli(["datasets", "audit", gone, "--repo", repoArg()], { env });
    expect(r.stdout).toMatch(new RegExp(`^${T}: env-failure: the task cannot be derived from the repository given with --repo, .+`, "m"));
    expect(r.stdout).toContain(staticLines[0]);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(r.code).toBe(1);
  });

  it("bad input: an unknown --repo name is one line, exit 2, no stack trace", () => {
    const r = cli(["datasets", "audit", file, "--repo", "nope=/x"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("--repo: nope: no repository nope in the manifests (calc)\n");
  });
});

const missingTool = skipWithout(import.meta.url, "bwrap");
describe.skipIf(missingTool)("datasets audit --run-tests", () => {
  it("finds a declared P2P failing at the base and an F2P mapped to a later stage than the one it passes at", { timeout: 300_000 }, () => {
    const r = cli(["datasets", "audit", file, "--repo", repoArg(), "--run-tests"], { env });
    const lines = r.stdout.split("\n");
    expect(lines).toContain(
      `${T}: p2p-fails-at-base: 1 declared P2P test(s) do not pass at the base: the verifier scores a requirement no request states, tests/test_ops.py::test_broken`,
    );
    expect(lines).toContain(
      `${T}: stage 2: f2p-wrong-stage: 1 F2P test(s) mapped to this stage first pass at another, tests/test_ops.py::test__clamp first passes after stage 1`,
    );
    expect(r.stdout).not.toMatch(/base-broken|env-failure/);
    expect(r.stdout).toMatch(/tests run\n$/);
    expect(r.code).toBe(1);
  });

  // fsspec's glob task: its one test module is new, so nothing exists at the base to be broken (mining does not judge such modules either).
  it("a task whose test modules are all new is not base-broken", { timeout: 300_000 }, async () => {
    const h = gitHistory(root, "fresh");
    h.init();
    const base = h.commit("base", { "fresh/__init__.py": "", "fresh/ops.py": "def double(x):\n    return x\n" });
    const c1 = h.commit("double", {
      "fresh/ops.py": "def double(x):\n    return 2 * x\n",
      "tests/test_ops.py": "from fresh.ops import double\n\n\ndef test_double():\n    assert double(2) == 4\n",
    });
    const c2 = h.commit("triple", {
      "fresh/ops.py": "def double(x):\n    return 2 * x\n\n\ndef triple(x):\n    return 3 * x\n",
      "tests/test_ops.py":
        "from fresh.ops import double\n\n\ndef test_double():\n    assert double(2) == 4\n\n\ndef test_triple():\n    from fresh.ops import triple\n    assert triple(2) == 6\n",
    });
    const tests = ["**/tests/**"];
    const digests = await upstreamDigestsOf(join(h.repo, ".git"), base, [c1, c2], testFileMatcher({ tests }));
    const stage = (cut: string, text: string, id: string, k: number) => ({
      cut,
      provenance: `commit ${cut}`,
      text,
      reviewed_by: { reader: "bob", note: "asks what the test checks" },
      tests: [id],
      patch_sha256: digests.stages[k],
    });
    const fresh = join(root, "fresh.json");
    const manifest = {
      format: "switch-swe.task-manifest/2",
      name: "fresh",
      version: "1",
      repos: { fresh: { git: "https://example.org/fresh.git", source: { include: ["**/*.py"], exclude: tests }, tests } },
      tasks: [
        {
          id: "fresh-ops",
          repo: "fresh",
          base,
          provenance: "chain of commits",
          stages: [
            stage(c1, "Make double() return twice its argument: double(2) should return 4.", "tests/test_ops.py::test_double", 0),
            stage(c2, "Add triple() beside double(): triple(2) should return 6.", "tests/test_ops.py::test_triple", 1),
          ],
          tests_patch_sha256: digests.tests,
          verifier: { fail_to_pass: ["tests/test_ops.py::test_double", "tests/test_ops.py::test_triple"], pass_to_pass: [] },
        },
      ],
    };
    writeFileSync(fresh, JSON.stringify(manifest, null, 2));
    const r = cli(["datasets", "audit", fresh, "--repo", `fresh=${h.repo}`, "--run-tests"], { env });
    expect(r.stdout).not.toMatch(/base-broken|env-failure|f2p-/);
    expect(r.stdout).toMatch(/^1 task\(s\), 2 stage\(s\): 0 error\(s\), 0 warning\(s\); .*tests run\n$/m);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  // click-d77a0aefad: an old test whose module imports what the stage adds fails at the base only through that import.
  it("a declared P2P failing at the base because its module cannot be collected there is told apart", { timeout: 300_000 }, async () => {
    const h = gitHistory(root, "gated");
    h.init();
    const old = "\n\ndef test_old():\n    assert double(2) == 2\n";
    const base = h.commit("base", {
      "gated/__init__.py": "",
      "gated/ops.py": "def double(x):\n    return x\n",
      "tests/test_ops.py": `from gated.ops import double\n${old}`,
    });
    const c1 = h.commit("triple", {
      "gated/ops.py": "def double(x):\n    return x\n\n\ndef triple(x):\n    return 3 * x\n",
      "tests/test_ops.py": `from gated.ops import double, triple\n${old}\n\ndef test_triple():\n    assert triple(2) == 6\n`,
    });
    const c2 = h.commit("quadruple", {
      "gated/ops.py": "def double(x):\n    return x\n\n\ndef triple(x):\n    return 3 * x\n\n\ndef quadruple(x):\n    return 4 * x\n",
    });
    const tests = ["**/tests/**"];
    const digests = await upstreamDigestsOf(join(h.repo, ".git"), base, [c1, c2], testFileMatcher({ tests }));
    const stage = (cut: string, text: string, ids: string[], k: number) => ({
      cut,
      provenance: `commit ${cut}`,
      text,
      tests: ids,
      patch_sha256: digests.stages[k],
    });
    const gated = join(root, "gated.json");
    const manifest = {
      format: "switch-swe.task-manifest/2",
      name: "gated",
      version: "1",
      repos: { gated: { git: "https://example.org/gated.git", source: { include: ["**/*.py"], exclude: tests }, tests } },
      tasks: [
        {
          id: "gated-ops",
          repo: "gated",
          base,
          provenance: "chain of commits",
          stages: [
            stage(c1, "Add triple() beside double(): triple(2) should return 6.", ["tests/test_ops.py::test_triple"], 0),
            stage(c2, "Add quadruple() beside triple(): quadruple(2) should return 8.", [], 1),
          ],
          tests_patch_sha256: digests.tests,
          verifier: { fail_to_pass: ["tests/test_ops.py::test_triple"], pass_to_pass: ["tests/test_ops.py::test_old"] },
        },
      ],
    };
    writeFileSync(gated, JSON.stringify(manifest, null, 2));
    const r = cli(["datasets", "audit", gated, "--repo", `gated=${h.repo}`, "--run-tests"], { env });
    expect(r.stdout.split("\n")).toContain(
      "gated-ops: p2p-fails-at-base: 1 declared P2P test(s) do not pass at the base: the verifier scores a requirement no request states; " +
        "1 of them only because their module cannot be collected there (an old test a stage's import gates is neither F2P nor P2P), tests/test_ops.py::test_old",
    );
    expect(r.code, r.stdout + r.stderr).toBe(1);
  });

  // hypothesis-f95f5793f3: its codemods tests import libcst, which its environment does not install, at the base and after every stage.
  it("a test module the environment cannot load in any state is a warning, not base-broken", { timeout: 300_000 }, async () => {
    const h = gitHistory(root, "optdep");
    h.init();
    const optional = (body: string) => `import not_installed_anywhere\n\n\ndef test_opt():\n    assert not_installed_anywhere.${body}\n`;
    const base = h.commit("base", {
      "optdep/__init__.py": "",
      "optdep/ops.py": "def double(x):\n    return x\n",
      "tests/test_opt.py": optional("a"),
    });
    const c1 = h.commit("double", {
      "optdep/ops.py": "def double(x):\n    return 2 * x\n",
      "tests/test_ops.py": "from optdep.ops import double\n\n\ndef test_double():\n    assert double(2) == 4\n",
    });
    const c2 = h.commit("optional", {
      "optdep/ops.py": "def double(x):\n    return 2 * x\n\n\nOPT = 1\n",
      "tests/test_opt.py": optional("b"),
    });
    const tests = ["**/tests/**"];
    const digests = await upstreamDigestsOf(join(h.repo, ".git"), base, [c1, c2], testFileMatcher({ tests }));
    const stage = (cut: string, text: string, ids: string[], k: number) => ({
      cut,
      provenance: `commit ${cut}`,
      text,
      tests: ids,
      patch_sha256: digests.stages[k],
    });
    const optdep = join(root, "optdep.json");
    const manifest = {
      format: "switch-swe.task-manifest/2",
      name: "optdep",
      version: "1",
      repos: { optdep: { git: "https://example.org/optdep.git", source: { include: ["**/*.py"], exclude: tests }, tests } },
      tasks: [
        {
          id: "optdep-ops",
          repo: "optdep",
          base,
          provenance: "chain of commits",
          stages: [
            stage(c1, "Make double() return twice its argument: double(2) should return 4.", ["tests/test_ops.py::test_double"], 0),
            stage(c2, "Add a module constant OPT equal to 1 beside double().", [], 1),
          ],
          tests_patch_sha256: digests.tests,
          verifier: { fail_to_pass: ["tests/test_ops.py::test_double"], pass_to_pass: [] },
        },
      ],
    };
    writeFileSync(optdep, JSON.stringify(manifest, null, 2));
    const r = cli(["datasets", "audit", optdep, "--repo", `optdep=${h.repo}`, "--run-tests"], { env });
    expect(r.stdout).not.toMatch(/base-broken/);
    expect(r.stdout.split("\n")).toContain(
      "optdep-ops: env-failure (warning): test module(s) cannot be collected at the base nor after the last stage (the environment lacks what they import): " +
        "no test of theirs is declared, tests/test_opt.py",
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });
});
