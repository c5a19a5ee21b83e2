import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../helpers/cli.js";
import { calcFiles, diffAgainst, fixedOps, git, tempDir, writeFiles } from "../verify/fixture.js";

const root = tempDir("switch-swe-variants-");
const env = { SWITCH_SWE_CACHE: join(root, "cache") };
const commits: string[] = [];
let mirror: string;

beforeAll(() => {
  const work = join(root, "work");
  writeFiles(work, calcFiles);
  git(work, "init", "-q", "-b", "main");
  git(work, "add", "-A");
  git(work, "commit", "-qm", "one");
  commits.push(git(work, "rev-parse", "HEAD").trim());
  for (const n of [2, 3]) {
    writeFileSync(join(work, "README.md"), `calc ${n}\n`);
    git(work, "commit", "-qam", `rev ${n}`);
    commits.push(git(work, "rev-parse", "HEAD").trim());
  }
  mirror = join(root, "mirror.git");
  git(root, "clone", "-q", "--mirror", work, mirror);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function instance(id: string, base: string, version: string, setupCommit: string): string {
  return JSON.stringify({
    instance_id: id,
    repo: "acme/calc",
    base_commit: base,
    patch: diffAgainst(calcFiles, (d) => writeFileSync(join(d, "calc", "ops.py"), fixedOps)),
    test_patch: diffAgainst(calcFiles, (d) =>
      writeFileSync(join(d, "tests", "test_add.py"), "from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"),
    ),
    problem_statement: "add() subtracts",
    FAIL_TO_PASS: ["tests/test_add.py::test_add"],
    PASS_TO_PASS: ["tests/test_ops.py::test_mul"],
    version,
    environment_setup_commit: setupCommit,
  });
}

describe("environments per version / environment_setup_commit", () => {
  it("the import chooses each task's variant; tasks of one set-up commit share one environment", () => {
    const [c1, c2, c3] = commits as [string, string, string];
    const file = join(root, "instances.jsonl");
    writeFileSync(
      file,
      [instance("calc-1", c2, "1.0", c1), instance("calc-2", c3, "1.0", c1), instance("calc-3", c3, "2.0", c3)].join("\n"),
    );
    const setup = ['mkdir -p "$SWITCH_SWE_ENV/bin"', `echo ${c1} > "$SWITCH_SWE_ENV/built-at"`];
    const map = join(root, "map.json");
    writeFileSync(map, JSON.stringify({ "acme/calc": { versions: { [c1]: { setup } } } }));
    const out = join(root, "ds");
    const imp = cli(["tasks", "import-swebench", file, "--out", out, "--test-command-map", map, "--repo", `acme/calc=${mirror}`], { env });
    expect(imp.stderr).toMatch(
      /\[2\]\.version: no environment for version 2\.0 or set-up commit [0-9a-f]{40} among the map's versions \([0-9a-f]{40}\)/,
    );
    expect(imp.code).toBe(1);
    const manifest = JSON.parse(readFileSync(join(out, "dataset.json"), "utf8"));
    expect(manifest.repos.acme__calc.environment.variants).toEqual({ [c1]: { setup, setup_commit: c1 } });
    for (const id of ["calc-1", "calc-2"])
      expect(JSON.parse(readFileSync(join(out, "tasks", id, "task.json"), "utf8")).environment).toBe(c1);

    const q = cli(["tasks", "qualify", out, "--runs", "1"], { env });
    expect(q.stdout).toContain("2 of 2 task(s) qualify");
    const info = JSON.parse(cli(["cache", "info", "--json"], { env }).stdout) as { envs: Array<{ commit?: string; ready: boolean }> };
    expect(info.envs).toHaveLength(1);
    expect(info.envs[0]).toMatchObject({ commit: c1, ready: true });
  });

  it("validate refuses a task whose environment is not declared", () => {
    const out = join(root, "ds");
    const taskFile = join(out, "tasks", "calc-1", "task.json");
    const task = JSON.parse(readFileSync(taskFile, "utf8"));
    writeFileSync(taskFile, JSON.stringify({ ...task, environment: "9.9" }));
    const v = cli(["tasks", "validate", out], { env });
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`${taskFile}: environment: "9.9" is not among repository acme__calc's environment.variants (${commits[0]})`);
  });
});
