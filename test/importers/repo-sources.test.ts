import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { calcFiles, diffAgainst, fixedOps, git, tempDir, writeFiles } from "../verify/fixture.js";

const root = tempDir("switch-swe-sources-");
let env: NodeJS.ProcessEnv;
let work: string;
let c1: string;
let c2: string;
let stage: string;
let testsPatch: string;

/** A real repository with two commits; instances pin each. */
beforeAll(() => {
  env = { SWITCH_SWE_CACHE: join(root, "cache") };
  work = join(root, "work");
  writeFiles(work, calcFiles);
  git(work, "init", "-q", "-b", "main");
  git(work, "add", "-A");
  git(work, "commit", "-qm", "one");
  c1 = git(work, "rev-parse", "HEAD").trim();
  writeFileSync(join(work, "README.md"), "calc 2\n");
  git(work, "commit", "-qam", "two");
  c2 = git(work, "rev-parse", "HEAD").trim();
  stage = diffAgainst(calcFiles, (d) => writeFileSync(join(d, "calc", "ops.py"), fixedOps));
  testsPatch = diffAgainst(calcFiles, (d) =>
    writeFileSync(join(d, "tests", "test_add.py"), "from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function instances(file: string, bases: string[], extra: Record<string, unknown> = {}): string {
  const lines = bases.map((b, i) =>
    JSON.stringify({
      instance_id: `acme__calc-${i + 1}`,
      repo: "acme/calc",
      base_commit: b,
      patch: stage,
      test_patch: testsPatch,
      problem_statement: "add() subtracts",
      FAIL_TO_PASS: ["tests/test_add.py::test_add"],
      PASS_TO_PASS: [],
      ...extra,
    }),
  );
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

const mirrorOf = (name: string) => {
  const m = join(root, name);
  git(root, "clone", "-q", "--mirror", work, m);
  return m;
};

describe("tasks import-swebench with local sources", () => {
  it("--repo OWNER/NAME=PATH clones from a local mirror: the dataset validates offline", () => {
    const mirror = mirrorOf("m-cli.git");
    const out = join(root, "ds-cli");
    const r = cli(
      ["tasks", "import-swebench", instances(join(root, "i1.jsonl"), [c1, c2]), "--out", out, "--repo", `acme/calc=${mirror}`],
      { env },
    );
    expect(r.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, "dataset.json"), "utf8"));
    expect(manifest.repos.acme__calc).toMatchObject({ git: "https://github.com/acme/calc.git", mirror: "../m-cli.git" });
    const v = cli(["tasks", "validate", out], { env });
    expect(v.stdout).toContain("2 tasks in 1 repositories, all valid");
    expect(v.code).toBe(0);
  });

  it("the map file's git and mirror keys (mirror relative to the map file)", () => {
    mirrorOf("m-map.git");
    const map = join(root, "map.json");
    writeFileSync(
      map,
      JSON.stringify({
        "acme/calc": { git: "https://example.org/acme/calc.git", mirror: "m-map.git", test_command: "python3 -m pytest {tests}" },
      }),
    );
    const out = join(root, "ds-map");
    expect(
      cli(["tasks", "import-swebench", instances(join(root, "i2.jsonl"), [c1]), "--out", out, "--test-command-map", map], { env }).code,
    ).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, "dataset.json"), "utf8"));
    expect(manifest.repos.acme__calc).toMatchObject({ git: "https://example.org/acme/calc.git", mirror: "../m-map.git" });
    expect(cli(["tasks", "validate", out], { env }).code).toBe(0);
  });

  it("an unreachable source is reported once per repository, with the fix and without a temporary path", () => {
    const map = join(root, "map-offline.json");
    writeFileSync(map, JSON.stringify({ "acme/calc": { git: `file://${join(root, "nowhere.git")}` } }));
    const out = join(root, "ds-offline");
    cli(
      ["tasks", "import-swebench", instances(join(root, "i3.jsonl"), [c1, c2, c1.slice(0, 12)]), "--out", out, "--test-command-map", map],
      { env },
    );
    const v = cli(["tasks", "validate", out], { env });
    expect(v.code).toBe(1);
    const lines = v.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /dataset\.json: repos\.acme__calc: cannot clone file:\/\/.*nowhere\.git: fatal: .*; offline, point the repository at a local clone, mirror or bundle \("mirror": PATH in dataset\.json's repos\.acme__calc, or --repo when importing or materializing\) \(3 task\(s\) not checked against it\)$/,
    );
    expect(lines[0]).not.toMatch(/tmp-\d+/);
    expect(lines[1]).toBe("1 problem(s) in 3 task(s)");
  });
});

describe("the repository cache", () => {
  it("a mirror whose HEAD does not resolve is accepted when every task pins its base", () => {
    const mirror = mirrorOf("m-nohead.git");
    git(mirror, "symbolic-ref", "HEAD", "refs/heads/no-such-branch");
    const out = join(root, "ds-nohead");
    cli(["tasks", "import-swebench", instances(join(root, "i4.jsonl"), [c1, c2]), "--out", out, "--repo", `acme/calc=${mirror}`], { env });
    const v = cli(["tasks", "validate", out], { env });
    expect(v.stdout).toContain("all valid");
    expect(v.code).toBe(0);
  });

  it("a failed clone is never kept: once the source is fixed, the same dataset validates", () => {
    const empty = join(root, "m-empty.git");
    mkdirSync(empty);
    git(empty, "init", "-q", "--bare");
    const out = join(root, "ds-empty");
    cli(["tasks", "import-swebench", instances(join(root, "i5.jsonl"), [c1]), "--out", out, "--repo", `acme/calc=${empty}`], { env });
    const bad = cli(["tasks", "validate", out], { env });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("is not a usable repository: it has no branch or tag");
    const repos = join(root, "cache", "repos");
    const before = existsSync(repos) ? readdirSync(repos).length : 0;
    git(work, "push", "-q", empty, "main");
    const good = cli(["tasks", "validate", out], { env });
    expect(good.stdout).toContain("all valid");
    expect(readdirSync(repos).length).toBe(before + 1);
  });

  it("the cache is keyed by every source field: the same URL from another mirror is another clone", () => {
    // m-old lacks the second commit; a dataset on m-new needs it.
    const old = join(root, "m-old.git");
    git(root, "clone", "-q", "--mirror", work, old);
    git(old, "update-ref", "-d", "refs/heads/main");
    git(old, "update-ref", "refs/heads/main", c1);
    git(old, "gc", "-q", "--prune=now");
    const a = join(root, "ds-old");
    cli(["tasks", "import-swebench", instances(join(root, "i6.jsonl"), [c1]), "--out", a, "--repo", `acme/calc=${old}`], { env });
    expect(cli(["tasks", "validate", a], { env }).code).toBe(0);
    const fresh = mirrorOf("m-new.git");
    const b = join(root, "ds-new");
    cli(["tasks", "import-swebench", instances(join(root, "i7.jsonl"), [c2]), "--out", b, "--repo", `acme/calc=${fresh}`], { env });
    const v = cli(["tasks", "validate", b], { env });
    expect(v.stdout).toContain("all valid");
  });

  it("a base the cached clone lacks says which cache clear fixes it", () => {
    const mirror = mirrorOf("m-missing.git");
    const out = join(root, "ds-missing");
    cli(
      [
        "tasks",
        "import-swebench",
        instances(join(root, "i8.jsonl"), ["0123456789abcdef0123456789abcdef01234567"]),
        "--out",
        out,
        "--repo",
        `acme/calc=${mirror}`,
      ],
      { env },
    );
    const v = cli(["tasks", "validate", out], { env });
    expect(v.code).toBe(1);
    expect(v.stdout).toMatch(
      /base: revision "0123456789abcdef0123456789abcdef01234567" not found in repository acme__calc \(cached clone of .*m-missing\.git at .*; `switch-swe cache clear --repos` clones it again\)/,
    );
  });
});
