import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface SyntheticTask {
  id: string;
  /** Source files the task changes (one stage appends a line to each, per stage). */
  files: string[];
  stages: number;
}

const gitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
};

function sh(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8" });
}

export { tempDir } from "./temp.js";

/**
 * Writes a real dataset directory: a local repository tree, and tasks whose stage patches
 * come from real `git diff` output (each stage appends a line to each of the task's files).
 */
export function writeSyntheticDataset(root: string, repoFiles: string[], tasks: SyntheticTask[], repoName = "demo"): string {
  const repoDir = join(root, "repos", repoName);
  for (const f of repoFiles) {
    mkdirSync(dirname(join(repoDir, f)), { recursive: true });
    writeFileSync(join(repoDir, f), `# ${f}\nVALUE = 1\n`);
  }
  mkdirSync(join(repoDir, "tests"), { recursive: true });
  writeFileSync(join(repoDir, "tests", "test_base.py"), "def test_ok():\n    assert True\n");
  writeFileSync(
    join(root, "dataset.json"),
    JSON.stringify({ name: "synthetic", version: "1", repos: { [repoName]: { path: `repos/${repoName}` } } }, null, 2),
  );
  const scratch = mkdtempSync(join(tmpdir(), "switch-swe-scratch-"));
  try {
    for (const t of tasks) {
      const work = join(scratch, t.id);
      cpSync(repoDir, work, { recursive: true });
      sh(work, "init", "-q");
      sh(work, "add", "-A");
      sh(work, "commit", "-qm", "base");
      const taskDir = join(root, "tasks", t.id);
      mkdirSync(taskDir, { recursive: true });
      for (let k = 1; k <= t.stages; k++) {
        for (const f of t.files) {
          mkdirSync(dirname(join(work, f)), { recursive: true });
          writeFileSync(join(work, f), `${readOr(join(work, f))}STAGE_${k} = "${t.id}"\n`);
        }
        sh(work, "add", "-A");
        writeFileSync(join(taskDir, `stage-${k}.patch`), sh(work, "diff", "--cached"));
        sh(work, "commit", "-qm", `stage ${k}`);
      }
      const testName = `tests/test_${t.id.replace(/[^A-Za-z0-9]/g, "_")}.py`;
      sh(work, "checkout", "-q", "HEAD~" + t.stages);
      writeFileSync(join(work, testName), "def test_stage_1():\n    assert True\n");
      sh(work, "add", "-A");
      writeFileSync(join(taskDir, "tests.patch"), sh(work, "diff", "--cached"));
      writeFileSync(
        join(taskDir, "task.json"),
        JSON.stringify(
          {
            id: t.id,
            repo: repoName,
            base: "HEAD",
            requests: Array.from({ length: t.stages }, (_, k) => ({
              text: `Task ${t.id}, stage ${k + 1}: add STAGE_${k + 1} to ${t.files.join(", ")}.`,
              tests: k === 0 ? [`${testName}::test_stage_1`] : [],
            })),
            verifier: { fail_to_pass: [`${testName}::test_stage_1`], pass_to_pass: ["tests/test_base.py::test_ok"] },
          },
          null,
          2,
        ),
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return root;
}

function readOr(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

/** Ten tasks over five directories: every task has both near and far partners. */
export const layoutTen: { files: string[]; tasks: SyntheticTask[] } = {
  files: [
    "pkg/a/one.py",
    "pkg/a/two.py",
    "pkg/a/three.py",
    "pkg/b/one.py",
    "pkg/b/two.py",
    "pkg/b/three.py",
    "pkg/c/one.py",
    "pkg/c/two.py",
    "pkg/d/one.py",
    "pkg/d/two.py",
    "pkg/e/one.py",
    "pkg/e/two.py",
  ],
  tasks: [
    { id: "t01", files: ["pkg/a/one.py"], stages: 3 },
    { id: "t02", files: ["pkg/a/two.py"], stages: 2 },
    { id: "t03", files: ["pkg/a/three.py", "pkg/b/one.py"], stages: 4 },
    { id: "t04", files: ["pkg/b/two.py"], stages: 3 },
    { id: "t05", files: ["pkg/b/three.py", "pkg/c/one.py"], stages: 3 },
    { id: "t06", files: ["pkg/c/two.py"], stages: 1 },
    { id: "t07", files: ["pkg/d/one.py"], stages: 3 },
    { id: "t08", files: ["pkg/d/two.py", "pkg/e/one.py"], stages: 2 },
    { id: "t09", files: ["pkg/e/two.py"], stages: 3 },
    { id: "t10", files: ["pkg/e/new_module.py", "pkg/a/one.py"], stages: 2 },
  ],
};
