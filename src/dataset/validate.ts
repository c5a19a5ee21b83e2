import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Problem } from "../core/errors.js";
import { git, gitTry } from "../core/git.js";
import { testFileMatcher } from "./file-rules.js";
import { testIdPathProblem } from "./test-id-paths.js";
import { loadDatasetCollecting, type Dataset, type LoadedTask } from "./load.js";
import { patchFiles } from "./patch-files.js";
import { materializeRepo, resolveBase } from "./repo-cache.js";
import { taskSourceFiles } from "./source-files.js";

function duplicates(list: readonly string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const x of list) (seen.has(x) ? dup : seen).add(x);
  return [...dup];
}

/** Checks of one task that need no repository: test lists, stage mapping, source files. */
export function checkTaskStatic(task: LoadedTask, dataset: Dataset): Problem[] {
  const file = join(task.dir, "task.json");
  const out: Problem[] = [];
  const p = (path: string, message: string) => out.push({ file, path, message });
  const { fail_to_pass: f2p, pass_to_pass: p2p } = task.verifier;
  if (f2p.length === 0) p("verifier.fail_to_pass", "a task needs at least one fail-to-pass test");
  for (const d of duplicates(f2p)) p("verifier.fail_to_pass", `duplicate test id ${d}`);
  for (const d of duplicates(p2p)) p("verifier.pass_to_pass", `duplicate test id ${d}`);
  const f2pSet = new Set(f2p);
  for (const t of p2p) if (f2pSet.has(t)) p("verifier.pass_to_pass", `${t} is also a fail-to-pass test`);
  const stageOf = new Map<string, number>();
  task.requests.forEach((r, k) => {
    for (const t of r.tests ?? []) {
      if (!f2pSet.has(t)) p(`requests[${k}].tests`, `${t} is not in verifier.fail_to_pass`);
      if (stageOf.has(t)) p(`requests[${k}].tests`, `${t} is already introduced by stage ${stageOf.get(t)! + 1}`);
      else stageOf.set(t, k);
    }
  });
  const repo = dataset.manifest.repos[task.repo];
  if (!repo) return out;
  const isTest = testFileMatcher(repo);
  for (const [field, ids] of [["verifier.fail_to_pass", f2p], ["verifier.pass_to_pass", p2p]] as const) {
    for (const id of new Set(ids)) {
      const why = testIdPathProblem(id, isTest);
      if (why) p(field, why);
    }
  }
  task.stagePatches.forEach((text, k) => {
    const patchFile = join(task.dir, `stage-${k + 1}.patch`);
    try {
      const files = patchFiles(text);
      if (files.length === 0) out.push({ file: patchFile, path: "", message: "empty patch: every stage needs a reference change" });
      for (const f of files) {
        const path = f.to ?? f.from ?? "";
        if (isTest(path)) out.push({ file: patchFile, path, message: "the reference changes a test file (the verifier drops test files from artifacts)" });
      }
    } catch (e) {
      out.push({ file: patchFile, path: "", message: `does not parse: ${(e as Error).message}` });
    }
  });
  try {
    patchFiles(task.testsPatch);
  } catch (e) {
    out.push({ file: join(task.dir, "tests.patch"), path: "", message: `does not parse: ${(e as Error).message}` });
  }
  try {
    if (taskSourceFiles(task.stagePatches, repo).length === 0) {
      p("", "the reference changes no source file (under the repository's source rules)");
    }
  } catch {
    // already reported as a parse problem
  }
  return out;
}

/** Applies the stage patches in order to the base, and the test patch to the base, in a private index. */
async function checkTaskApplies(task: LoadedTask, dataset: Dataset): Promise<Problem[]> {
  const file = join(task.dir, "task.json");
  let repo;
  try {
    repo = await materializeRepo(dataset, task.repo);
  } catch (e) {
    return [{ file, path: "repo", message: `repository ${task.repo} cannot be materialized: ${(e as Error).message.split("\n")[0]}` }];
  }
  const base = await resolveBase(repo, task.base);
  if (!base) return [{ file, path: "base", message: `revision "${task.base}" not found in repository ${task.repo}` }];
  const index = join(tmpdir(), `switch-swe-validate-${process.pid}-${task.id}-${Math.random().toString(36).slice(2)}`);
  const env = { GIT_DIR: repo.gitDir, GIT_INDEX_FILE: index };
  const out: Problem[] = [];
  try {
    const apply = async (patchName: string, text: string): Promise<boolean> => {
      if (text.trim() === "") return true;
      const r = await gitTry(["apply", "--cached", "--binary", "-"], { env, input: text, cwd: tmpdir() });
      if (r.code !== 0) {
        out.push({ file: join(task.dir, patchName), path: "", message: `does not apply: ${r.stderr.trim().split("\n")[0] ?? ""}` });
        return false;
      }
      return true;
    };
    await git(["read-tree", base], { env, cwd: tmpdir() });
    for (const [k, text] of task.stagePatches.entries()) {
      if (!(await apply(`stage-${k + 1}.patch`, text))) break;
    }
    await git(["read-tree", base], { env, cwd: tmpdir() });
    await apply("tests.patch", task.testsPatch);
  } finally {
    rmSync(index, { force: true });
  }
  return out;
}

/** Every problem of a dataset: structure, schema, test lists, patches parse and apply in order. */
export async function validateDataset(dir: string): Promise<{ dataset: Dataset | null; problems: Problem[] }> {
  const { dataset, problems } = loadDatasetCollecting(dir);
  if (!dataset) return { dataset, problems };
  for (const task of dataset.tasks) {
    problems.push(...checkTaskStatic(task, dataset));
    if (task.repo in dataset.manifest.repos) problems.push(...(await checkTaskApplies(task, dataset)));
  }
  return { dataset, problems };
}
