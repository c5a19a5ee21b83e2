import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { packageRoot } from "../../src/core/package-paths.js";
import { cli } from "../helpers/cli.js";
import { dirname, join } from "node:path";
import { tempDir } from "../helpers/temp.js";

export { tempDir };

const gitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8" });
}

export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
}

/** A tiny Python package with a bug in add(), a passing test of mul(), a binary file and a symlink out. */
export const calcFiles: Record<string, string | Buffer> = {
  "calc/__init__.py": "",
  "calc/ops.py": "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
  "calc/util.py": "def ident(x):\n    return x\n",
  "calc/old_name.py": "NAME = 'old'\n",
  "data/blob.bin": Buffer.from([0, 1, 2, 3, 255, 254, 0, 10, 13, 0]),
  "tests/test_ops.py": "from calc.ops import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
  "README.md": "calc\n",
};

export const calcTestsPatchFiles: Record<string, string> = {
  "tests/test_ops.py": [
    "import pytest",
    "from calc.ops import add, mul",
    "",
    "",
    "def test_mul():",
    "    assert mul(2, 3) == 6",
    "",
    "",
    "def test_add():",
    "    assert add(2, 3) == 5",
    "",
    "",
    '@pytest.mark.parametrize("a,b", [(1, 2), (3, 4)])',
    "def test_add_many(a, b):",
    "    assert add(a, b) == a + b",
    "",
    "",
    "class TestAdd:",
    "    def test_neg(self):",
    "        assert add(-1, -1) == -2",
    "",
  ].join("\n"),
};

export const calcF2P = [
  "tests/test_ops.py::test_add",
  "tests/test_ops.py::test_add_many[1-2]",
  "tests/test_ops.py::test_add_many[3-4]",
  "tests/test_ops.py::TestAdd::test_neg",
];
export const calcP2P = ["tests/test_ops.py::test_mul"];

export const fixedOps = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n";

/** A git work copy of `files` with one commit; returns a function giving `git diff --binary` after a change. */
export function diffAgainst(
  files: Record<string, string | Buffer>,
  change: (dir: string) => void,
  symlinks: Record<string, string> = {},
): string {
  const dir = tempDir("switch-swe-diff-");
  try {
    writeFiles(dir, files);
    for (const [link, target] of Object.entries(symlinks)) symlinkSync(target, join(dir, link));
    git(dir, "init", "-q");
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "base");
    change(dir);
    git(dir, "add", "-A");
    return git(dir, "diff", "--cached", "--binary", "HEAD");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface CalcTaskOptions {
  id?: string;
  f2p?: string[];
  p2p?: string[];
  timeout_s?: number;
  command?: string;
  stage?: string;
  testsPatch?: string;
}

export interface CalcDatasetOptions {
  setup?: string[];
  testCommand?: string;
  tasks?: CalcTaskOptions[];
  extraRepoFiles?: Record<string, string | Buffer>;
  symlinks?: Record<string, string>;
}

export const defaultPytest = "python3 -m pytest -rA -p no:cacheprovider --junitxml={junit} {tests}";

/** Writes a dataset directory with the calc repository and its tasks; returns its root. */
export function writeCalcDataset(root: string, opts: CalcDatasetOptions = {}): string {
  const repoFiles = { ...calcFiles, ...opts.extraRepoFiles };
  writeFiles(join(root, "repos", "calc"), repoFiles);
  for (const [link, target] of Object.entries(opts.symlinks ?? {})) symlinkSync(target, join(root, "repos", "calc", link));
  const environment: Record<string, unknown> = { test_command: opts.testCommand ?? defaultPytest };
  if (opts.setup) environment.setup = opts.setup;
  writeFileSync(
    join(root, "dataset.json"),
    JSON.stringify({ name: "calc-fixture", version: "1", repos: { calc: { path: "repos/calc", environment } } }, null, 2),
  );
  const stage = diffAgainst(repoFiles, (d) => writeFiles(d, { "calc/ops.py": fixedOps }));
  const testsPatch = diffAgainst(repoFiles, (d) => writeFiles(d, calcTestsPatchFiles));
  for (const t of opts.tasks ?? [{}]) {
    const id = t.id ?? "fix-add";
    const dir = join(root, "tasks", id);
    mkdirSync(dir, { recursive: true });
    const verifier: Record<string, unknown> = { fail_to_pass: t.f2p ?? calcF2P, pass_to_pass: t.p2p ?? calcP2P };
    if (t.timeout_s !== undefined) verifier.timeout_s = t.timeout_s;
    if (t.command !== undefined) verifier.command = t.command;
    writeFileSync(
      join(dir, "task.json"),
      JSON.stringify({ id, repo: "calc", base: "HEAD", requests: [{ text: "Make add() add." }], verifier }, null, 2),
    );
    writeFileSync(join(dir, "stage-1.patch"), t.stage ?? stage);
    writeFileSync(join(dir, "tests.patch"), t.testsPatch ?? testsPatch);
  }
  return root;
}

/** The calc repository's files, for building artifacts with diffAgainst. */
export function calcRepo(opts: CalcDatasetOptions = {}): Record<string, string | Buffer> {
  return { ...calcFiles, ...opts.extraRepoFiles };
}

/** A run directory as the run engineer writes it: run.json with the dataset path, and per-session artifacts. */
export function writeRunDir(runDir: string, datasetRoot: string, artifacts: Record<string, string | null>): void {
  writeFiles(runDir, { "run.json": JSON.stringify({ dataset: { path: datasetRoot } }, null, 2) });
  for (const [session, artifact] of Object.entries(artifacts)) {
    mkdirSync(join(runDir, "sessions", session), { recursive: true });
    if (artifact !== null) writeFileSync(join(runDir, "sessions", session, "artifact.patch"), artifact);
  }
}

/** The sample dataset copied into a fresh directory (one file system with the run and its workspaces), its sessions built (seed 0). */
export interface SampleCopy {
  root: string;
  dataset: string;
  sessions: string;
  env: NodeJS.ProcessEnv;
  /** The focus task of the sample's textflow pair. */
  focusTask: string;
}

export function copySampleWithSessions(prefix: string): SampleCopy {
  const root = tempDir(prefix);
  const dataset = join(root, "dataset");
  cpSync(join(packageRoot, "datasets", "sample"), dataset, { recursive: true });
  const env = { SWITCH_SWE_CACHE: join(root, "cache") };
  const sessions = join(root, "sessions.json");
  const b = cli(["sessions", "build", dataset, "--seed", "0", "--out", sessions], { env });
  if (b.code !== 0) throw new Error(`sessions build failed: ${b.stderr}`);
  const pairs = (JSON.parse(readFileSync(sessions, "utf8")) as { pairs: Array<{ focus: string; repo: string }> }).pairs;
  return { root, dataset, sessions, env, focusTask: pairs.find((p) => p.repo === "textflow")!.focus };
}
