import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Problem } from "../core/errors.js";
import { git, gitTry } from "../core/git.js";
import { testFileMatcher } from "./file-rules.js";
import { testIdPathProblem } from "./test-id-paths.js";
import { loadDatasetCollecting, type Dataset, type LoadedTask } from "./load.js";
import { patchFiles } from "./patch-files.js";
import { baseNotFoundHint, materializeRepo, resolveBase, type MaterializedRepo } from "./repo-cache.js";
import { generatedMatch } from "./generated-ids.js";
import { taskSourceFiles } from "./source-files.js";
import { AUTHORED } from "./schema.js";
import { unpinnedEnvironment, type RunnerPackage } from "./pinned-setup.js";

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
    if (r.provenance === AUTHORED && (r.tests ?? []).length === 0)
      p(`requests[${k}].tests`, "an authored stage needs the F2P tests its request justifies (its own regression tests)");
    if (r.provenance === AUTHORED && k === 0)
      p(`requests[${k}].provenance`, "authored stages extend a task: the first stage is the task's own");
    if (r.provenance !== AUTHORED && task.requests.slice(0, k).some((e) => e.provenance === AUTHORED))
      p(`requests[${k}].provenance`, "follows an authored stage: authored stages come last");
    for (const t of r.tests ?? []) {
      if (!f2pSet.has(t)) p(`requests[${k}].tests`, `${t} is not in verifier.fail_to_pass`);
      if (stageOf.has(t)) p(`requests[${k}].tests`, `${t} is already introduced by stage ${stageOf.get(t)! + 1}`);
      else stageOf.set(t, k);
    }
  });
  // Alignment: every F2P test is justified by the stage whose request asks for it. In a one-stage
  // task an absent map is unambiguous (that stage), as SWE-bench instances have it.
  if (task.requests.length > 1) {
    for (const t of new Set(f2p))
      if (!stageOf.has(t)) p("verifier.fail_to_pass", `${t} is mapped to no stage (list it in the tests of the request that asks for it)`);
  }
  const repo = dataset.manifest.repos[task.repo];
  if (!repo) return out;
  if (task.environment !== undefined && !(task.environment in (repo.environment?.variants ?? {}))) {
    const known = Object.keys(repo.environment?.variants ?? {});
    p(
      "environment",
      `"${task.environment}" is not among repository ${task.repo}'s environment.variants (${known.length > 0 ? known.join(", ") : "none declared"})`,
    );
  }
  const isTest = testFileMatcher(repo);
  for (const [field, ids] of [
    ["verifier.fail_to_pass", f2p],
    ["verifier.pass_to_pass", p2p],
  ] as const) {
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
        if (isTest(path))
          out.push({ file: patchFile, path, message: "the reference changes a test file (the verifier drops test files from artifacts)" });
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

/**
 * Applies the stage patches in order to the base, and the test patch to the base, in a private index;
 * `read`: test files whose text is returned as they are there (base + tests.patch), when it applies.
 */
async function checkTaskApplies(
  task: LoadedTask,
  repo: MaterializedRepo,
  read: readonly string[] = [],
): Promise<{ problems: Problem[]; sources: Map<string, string> }> {
  const file = join(task.dir, "task.json");
  const sources = new Map<string, string>();
  const base = await resolveBase(repo, task.base);
  if (!base) {
    const why =
      task.base === "HEAD" && repo.head === null ? " (the repository's HEAD does not resolve: pin a commit)" : baseNotFoundHint(repo);
    return { problems: [{ file, path: "base", message: `revision "${task.base}" not found in repository ${task.repo}${why}` }], sources };
  }
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
    if (await apply("tests.patch", task.testsPatch)) {
      for (const m of read) {
        const r = await gitTry(["show", `:${m}`], { env, cwd: tmpdir() });
        if (r.code === 0) sources.set(m, r.stdout);
      }
    }
  } finally {
    rmSync(index, { force: true });
  }
  return { problems: out, sources };
}

/** Each repository the tasks use, materialized once; one problem per repository that is not available. */
async function materializeUsed(dataset: Dataset, problems: Problem[]): Promise<Map<string, MaterializedRepo>> {
  const out = new Map<string, MaterializedRepo>();
  const used = [...new Set(dataset.tasks.map((t) => t.repo))].filter((r) => r in dataset.manifest.repos).sort();
  for (const name of used) {
    try {
      out.set(name, await materializeRepo(dataset, name));
    } catch (e) {
      const n = dataset.tasks.filter((t) => t.repo === name).length;
      const message = (e as Error).message.split("\n")[0];
      problems.push({
        file: join(dataset.root, "dataset.json"),
        path: `repos.${name}`,
        message: `${message} (${n} task(s) not checked against it)`,
      });
    }
  }
  return out;
}

/**
 * Declared test ids that look generated: a verifier will not find them again. Unless the text that
 * looks so is written in the test's own module (`sources`: each module at the base with tests.patch
 * applied, absent when unknown): a date, UUID or hex number the test spells out is the same on every
 * run (sqlparse's dated statements, click's UUID option cases), and dropping it would lose a test.
 */
export function generatedIdWarnings(task: LoadedTask, sources: ReadonlyMap<string, string> = new Map()): Problem[] {
  const file = join(task.dir, "task.json");
  const out: Problem[] = [];
  for (const [field, ids] of [
    ["verifier.fail_to_pass", task.verifier.fail_to_pass],
    ["verifier.pass_to_pass", task.verifier.pass_to_pass],
  ] as const) {
    for (const id of ids) {
      const m = generatedMatch(id);
      if (!m || sources.get(id.split("::")[0]!)?.includes(m.text)) continue;
      out.push({
        file,
        path: field,
        message: `${id} looks generated (${m.why}): it will differ on the next run; run \`tasks qualify --write\` to drop it`,
      });
    }
  }
  return out;
}

/** The test modules of `task`'s declared ids that look generated (read by checkTaskApplies at the base with tests.patch applied). */
function generatedIdModules(task: LoadedTask): string[] {
  return [
    ...new Set(
      [...task.verifier.fail_to_pass, ...task.verifier.pass_to_pass]
        .filter((id) => generatedMatch(id) !== null)
        .map((id) => id.split("::")[0]!),
    ),
  ];
}

export interface ValidateResult {
  dataset: Dataset | null;
  problems: Problem[];
  /** Doubtful but not wrong: printed, never a failure. */
  warnings: Problem[];
}

/**
 * Every problem of a dataset: structure, schema, test lists, patches parse and apply in order; with
 * `pinned` (the package each test runner needs pinned), every repository's set-up that does not declare
 * exact versions (dataset/pinned-setup.ts).
 */
export async function validateDataset(dir: string, opts: { pinned?: RunnerPackage } = {}): Promise<ValidateResult> {
  const { dataset, problems } = loadDatasetCollecting(dir);
  if (!dataset) return { dataset, problems, warnings: [] };
  if (opts.pinned) {
    for (const [name, repo] of Object.entries(dataset.manifest.repos)) {
      for (const [path, message] of unpinnedEnvironment(repo.environment, `repos.${name}.environment`, opts.pinned))
        problems.push({ file: join(dataset.root, "dataset.json"), path, message: `not pinned: ${message}` });
    }
  }
  const warnings: Problem[] = [];
  const repos = await materializeUsed(dataset, problems);
  for (const task of dataset.tasks) {
    problems.push(...checkTaskStatic(task, dataset));
    const repo = repos.get(task.repo);
    const applied = repo ? await checkTaskApplies(task, repo, generatedIdModules(task)) : null;
    warnings.push(...generatedIdWarnings(task, applied?.sources));
    if (applied) problems.push(...applied.problems);
  }
  return { dataset, problems, warnings };
}
