import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { claimDir, isLockFileOf, type DirLockKind } from "../core/dir-lock.js";
import { InputError } from "../core/errors.js";
import { readJsonWith, writeJsonAtomic } from "../core/json-file.js";
import { mapPool } from "../core/pool.js";
import { gitTry } from "../core/git.js";
import { defaultSourceExclude, defaultSourceInclude, defaultTestGlobs, sourceMatcher, testFileMatcher } from "../dataset/file-rules.js";
import { loadDataset, type Dataset } from "../dataset/load.js";
import { materializeRepo } from "../dataset/repo-cache.js";
import { isRemoteSource } from "../dataset/source-location.js";
import { datasetRepoOf, deriveTask, writeDerivedTask } from "../manifests/materialize.js";
import {
  TASK_MANIFEST_FORMAT,
  taskManifestReadSchema,
  type ManifestRepo,
  type ManifestTask,
  type TaskManifest,
} from "../manifests/task-manifest.js";
import { buildSessions } from "../sessions/build.js";
import { findTestRunner, testRunnerNames } from "../testbed/test-runners.js";
import type { TestRunner } from "../testbed/test-runner.js";
import { openScratch, reapNotices, reapStaleScratch } from "../testbed/verifier-scratch.js";
import { findCandidates, repoDir, severalFeatures, unrelatedStage, type Candidate } from "./candidates.js";
import { changedPaths, upstreamDigestsOf, type PathClass } from "../manifests/derive.js";
import type { FailingModule, ImportGated, MineSuite, RejectReason } from "./stage-tests.js";
import { runCandidateTests, type CandidateTester, type MineBackend } from "./candidate-tests.js";
import { substantiveStages, type FoldedStep } from "./stages.js";
import { unrelatedDefinitions } from "./chain-definitions.js";
import { MINE_REPORT_FORMAT, mineReportSchema, type MineReport, type MineSettings } from "./mine-report.js";

export interface MineOptions {
  repo: string;
  out: string;
  range?: string;
  max?: number;
  runs: number;
  maxStages: number;
  name?: string;
  testCommand?: string;
  /** `--test-runner`: the runner the repository's tests run under (`environment.test_runner`; default pytest). */
  testRunner?: string;
  setup?: string[];
  license?: string;
  /** The repository's public URL, recorded in the manifest when `repo` is a local mirror or bundle (also names the repository). */
  url?: string;
  /** Run set-up once at this revision and share the environment across all tasks (set-up must not depend on the checkout). */
  setupCommit?: string;
  /** `environment.python`: the set-up's venv must have this Python minor version and exactly its pins. */
  python?: string;
  /** Run the whole suite per state, or only the test files the candidate's steps touch (faster; F2P then comes from those files). */
  suite?: MineSuite;
  /** Deadline of one test run, also each mined task's verifier.timeout_s (default 1800 s). */
  timeoutS?: number;
  /** Candidates qualified at once (default 1); each runs its own test processes. */
  jobs?: number;
  /** Only candidates whose source changes all lie under one of these directories (default: anywhere). */
  paths?: string[];
  /** More globs of test files (fixtures included), beyond the defaults: e.g. `Tests/**` for a capitalised test tree. */
  testGlobs?: string[];
  /** Manifests whose tasks are not mined again: a candidate with a task's provenance is skipped. */
  known?: string[];
  /** Where the candidates' test runs happen (default: here, `jobs` at once); `tasks mine --queue` passes the queue's. */
  backend?: MineBackend;
  onLine?: (line: string) => void;
}

function repoNameOf(repo: string): string {
  const n = basename(repo.replace(/\/+$/, ""))
    .replace(/\.(git|bundle)$/, "")
    .replace(/[^A-Za-z0-9._-]/g, "-");
  return /^[A-Za-z0-9]/.test(n) ? n : `r${n}`;
}

/** The runner `--test-runner` names (default: the default runner); an unknown name is bad input. */
function runnerOf(opts: MineOptions): TestRunner {
  const runner = findTestRunner(opts.testRunner);
  if (runner !== undefined) return runner;
  throw new InputError({
    file: opts.repo,
    path: "--test-runner",
    message: `"${opts.testRunner}" is no test runner; the runners are ${testRunnerNames().join(", ")}`,
  });
}

/** The manifest entry: classification of source and test files fixed before any candidate is looked at. */
function manifestRepo(opts: MineOptions): ManifestRepo {
  const runner = runnerOf(opts);
  const environment = {
    test_command: opts.testCommand ?? runner.defaultCommand,
    // Named only when it is not the default, so that pytest manifests stay as they were.
    ...(opts.testRunner !== undefined && runner !== findTestRunner(undefined) ? { test_runner: runner.name } : {}),
    ...(opts.setup && opts.setup.length > 0 ? { setup: opts.setup } : {}),
    ...(opts.python !== undefined ? { python: opts.python } : {}),
  };
  return {
    git: opts.url ?? (isRemoteSource(opts.repo) ? opts.repo : resolve(opts.repo)),
    ...(opts.license ? { license: opts.license } : {}),
    // A test glob of our own is also a source exclusion: a fixture must land in tests.patch, never in a stage's patch.
    source: { include: defaultSourceInclude, exclude: [...defaultSourceExclude, ...(opts.testGlobs ?? [])] },
    tests: [...defaultTestGlobs, ...(opts.testGlobs ?? [])],
    environment,
  };
}

/** `--setup-commit`: resolved to a full commit and recorded in the environment of the manifest and the dataset. */
async function pinSetupCommit(gitDir: string, rev: string, into: Array<{ environment?: { setup_commit?: string } }>): Promise<void> {
  const r = await gitTry(["--git-dir", gitDir, "rev-parse", "--verify", "--quiet", `${rev}^{commit}`]);
  if (r.code !== 0) throw new InputError({ file: gitDir, path: "--setup-commit", message: `"${rev}" is not a commit of this repository` });
  for (const spec of into) spec.environment = { ...spec.environment, setup_commit: r.stdout.trim() };
}

interface Ctx {
  opts: MineOptions;
  dataset: Dataset;
  name: string;
  repo: ManifestRepo;
  gitDir: string;
  report: MineReport;
  test: CandidateTester;
}

function reject(
  ctx: Ctx,
  c: Candidate,
  reason: RejectReason,
  detail: string,
  testRuns = 0,
  extra: { folded?: FoldedStep[]; failing_modules?: FailingModule[] } = {},
): null {
  const folded = extra.folded && extra.folded.length > 0 ? { folded: extra.folded } : {};
  const failing = extra.failing_modules && extra.failing_modules.length > 0 ? { failing_modules: extra.failing_modules } : {};
  ctx.report.rejected.push({ candidate: c.provenance, reason, detail, test_runs: testRuns, ...folded, ...failing });
  ctx.report.rejected_by_reason[reason] = (ctx.report.rejected_by_reason[reason] ?? 0) + 1;
  ctx.opts.onLine?.(`rejected ${c.provenance}: ${reason} (${detail})`);
  return null;
}

const short = (f: FoldedStep): FoldedStep => ({ step: f.step.slice(0, 12), rule: f.rule, into: f.into?.slice(0, 12) ?? null });

/**
 * The pre-checks, on diffs and commit messages only (no test run): at least two substantive stages,
 * and one feature (no two steps naming different pull requests or issues; for a chain, each stage
 * changes a source file, and a function or class, that an earlier one changed).
 */
async function preCheck(
  ctx: Ctx,
  c: Candidate,
  isSource: PathClass,
  isTest: PathClass,
): Promise<{ cuts: string[]; folded: FoldedStep[] } | null> {
  const { cuts, folded } = await substantiveStages(ctx.gitDir, c.base, c.cuts, isSource, isTest);
  const foldedShort = folded.map(short);
  const rules = foldedShort.map((f) => `${f.step} ${f.rule}`).join(", ");
  if (cuts.length === 0 && folded.every((f) => f.rule === "progress only" || f.rule === "documentation only")) {
    return reject(ctx, c, "no source change", `no step changes source code${rules ? ` (${rules})` : ""}`, 0, { folded: foldedShort });
  }
  if (cuts.length < 2)
    return reject(
      ctx,
      c,
      "fewer than two substantive stages",
      `${cuts.length} substantive stage(s)${rules ? `; folded: ${rules}` : ""}`,
      0,
      { folded: foldedShort },
    );
  const several =
    (await severalFeatures(ctx.gitDir, c.cuts)) ??
    (c.kind === "chain"
      ? ((await unrelatedStage(ctx.gitDir, c.base, cuts, isSource, isTest)) ??
        (await unrelatedDefinitions(ctx.gitDir, c.base, cuts, isSource, isTest)))
      : null);
  if (several) return reject(ctx, c, "several features", several, 0, { folded: foldedShort });
  return { cuts, folded };
}

/** A manifest task with placeholder tests and digests, before its stages are qualified. */
async function draftTask(ctx: Ctx, id: string, base: string, cuts: string[], provenance: string): Promise<ManifestTask> {
  const isTest = testFileMatcher(ctx.repo);
  const digests = await upstreamDigestsOf(ctx.gitDir, base, cuts, isTest);
  return {
    id,
    repo: ctx.name,
    base,
    provenance,
    // Texts derived from commit messages are drafts: they never ship (datasets check refuses them).
    stages: cuts.map((cut, k) => ({
      cut,
      draft: true as const,
      provenance: `commit ${cut}: request derived from its message`,
      tests: [],
      patch_sha256: digests.stages[k]!,
    })),
    tests_patch_sha256: digests.tests,
    verifier: { fail_to_pass: [], pass_to_pass: [], timeout_s: ctx.opts.timeoutS ?? 1800 },
  };
}

/**
 * Qualifies one candidate by running the tests after each stage: its manifest entry with its report
 * entry, or null (rejected, already in the report). The caller records both together, so that no
 * report on disk lists a task its manifest does not hold yet.
 */
async function mineCandidate(ctx: Ctx, c: Candidate): Promise<{ entry: ManifestTask; mined: MineReport["mined"][number] } | null> {
  const started = Date.now();
  const isTest = testFileMatcher(ctx.repo);
  const isSource = sourceMatcher(ctx.repo);
  const pre = await preCheck(ctx, c, isSource, isTest);
  if (!pre) return null;
  const { cuts, folded } = pre;
  const foldedShort = folded.map(short);
  const id = `${ctx.name}-${cuts[cuts.length - 1]!.slice(0, 10)}`;
  const entry = await draftTask(ctx, id, c.base, cuts, c.provenance);
  const draft = await deriveTask(ctx.gitDir, ctx.repo, entry);
  if (draft.testsPatch.trim() === "") return reject(ctx, c, "no F2P", "the steps change no test file", 0, { folded: foldedShort });
  const testFiles = (await changedPaths(ctx.gitDir, c.base, cuts[cuts.length - 1]!)).filter(isTest);
  // The seam: the test runs happen here or on a queue's workers; everything before and after is this process's.
  const { verdict: v, testRuns } = await ctx.test({ entry, testFiles, runs: ctx.opts.runs, suite: ctx.opts.suite ?? "whole" });
  if (!v.ok)
    return reject(ctx, c, v.reason, v.detail, testRuns, {
      folded: foldedShort,
      ...(v.failingModules ? { failing_modules: v.failingModules } : {}),
    });
  // Every F2P test is mapped to the stage from which it passes; a stage may have none.
  entry.stages.forEach((s, k) => (s.tests = v.stageTests[k]!));
  entry.verifier = { fail_to_pass: v.stageTests.flat(), pass_to_pass: v.p2p, timeout_s: ctx.opts.timeoutS ?? 1800 };
  const ms = Date.now() - started;
  const without = v.stageTests.flatMap((t, k) => (t.length === 0 ? [k + 1] : []));
  const mined = {
    task: id,
    stages: cuts.length,
    f2p: entry.verifier.fail_to_pass.length,
    p2p: v.p2p.length,
    qualification_ms: ms,
    test_runs: testRuns,
    provenance: c.provenance,
    folded: foldedShort,
    stages_without_f2p: without,
    regression_tests: v.regression,
    failing_modules: v.failingModules,
    import_gated: v.importGated,
  };
  const notes = [
    ...(folded.length > 0 ? [`${folded.length} step(s) folded`] : []),
    ...(v.regression.length > 0 ? [`${v.regression.length} old test(s) not F2P`] : []),
    ...(v.failingModules.length > 0 ? [`${v.failingModules.length} module(s) failing in every state`] : []),
    ...(v.importGated.length > 0 ? [`${v.importGated.length} F2P test(s) mapped where their module first imports`] : []),
  ];
  ctx.opts.onLine?.(
    `mined ${id}: ${cuts.length} stages, ${entry.verifier.fail_to_pass.length} F2P, ${v.p2p.length} P2P (${(ms / 1000).toFixed(1)} s)${notes.length > 0 ? `; ${notes.join(", ")}` : ""}`,
  );
  for (const m of v.failingModules) ctx.opts.onLine?.(`warning: ${id}: ${m.module}: ${m.reason}`);
  for (const line of gatedWarnings(v.importGated)) ctx.opts.onLine?.(`warning: ${id}: ${line}`);
  return { entry, mined };
}

/** One line per module and stage (a module's hundreds of tests share one cause). */
function gatedWarnings(gated: readonly ImportGated[]): string[] {
  const groups = new Map<string, ImportGated[]>();
  for (const g of gated) {
    const key = `${g.test.split("::")[0]!}\u0000${g.stage}`;
    groups.set(key, [...(groups.get(key) ?? []), g]);
  }
  return [...groups.values()].map((list) => {
    const { test, stage, cause } = list[0]!;
    return `${list.length} F2P test(s) of ${test.split("::")[0]!} mapped to stage ${stage}, where their module first imports (after stage ${stage - 1}: ${cause})`;
  });
}

/** Near and far pairs must both be possible: locality comes from the real directory structure. */
function localityWarnings(out: string): string[] {
  try {
    const file = buildSessions(loadDataset(out), { seed: 0 });
    const near = file.pairs.filter((p) => p.locality === "near").length;
    const far = file.pairs.length - near;
    if (near > 0 && far > 0) return [];
    return [
      `sessions of this dataset have ${near} near and ${far} far pair(s): one side is empty, so the locality comparison cannot be made`,
    ];
  } catch (e) {
    return [`sessions cannot be built from the mined tasks: ${(e as Error).message.split("\n")[0]}`];
  }
}

/** Task directories of tasks the run does not keep (qualified after its last report, or past --max). */
function dropTaskDirs(out: string, kept: ReadonlySet<string>): void {
  const dir = join(out, "tasks");
  if (!existsSync(dir)) return;
  for (const id of readdirSync(dir)) if (!kept.has(id)) rmSync(join(dir, id), { recursive: true, force: true });
}

function settingsOf(opts: MineOptions): MineSettings {
  return {
    runs: opts.runs,
    max_stages: opts.maxStages,
    suite: opts.suite ?? "whole",
    timeout_s: opts.timeoutS ?? 1800,
    test_command: opts.testCommand ?? runnerOf(opts).defaultCommand,
    test_runner: runnerOf(opts).name,
    setup: opts.setup ?? [],
    setup_commit: opts.setupCommit ?? null,
    python: opts.python ?? null,
    name: opts.name ?? null,
    url: opts.url ?? null,
    license: opts.license ?? null,
    paths: opts.paths ?? [],
    test_globs: opts.testGlobs ?? [],
  };
}

const choosers = new Set<string>(["max_stages", "paths"]);

/** `--path`: each must be a directory at the range's newest commit `tip` (a typo would find no candidate, silently). */
async function checkPaths(gitDir: string, tip: string, paths: readonly string[]): Promise<void> {
  const problems = [];
  for (const p of paths) {
    const clean = repoDir(p);
    const r = await gitTry(["--git-dir", gitDir, "cat-file", "-t", `${tip}:${clean}`]);
    if (clean === "" || r.stdout.trim() !== "tree")
      problems.push({
        file: gitDir,
        path: "--path",
        message: `"${p}" is not a directory at ${tip.slice(0, 12)}, the newest commit of the range`,
      });
  }
  if (problems.length > 0) throw new InputError(problems);
}

/**
 * The run an earlier `tasks mine` left in `out` (killed, or stopped by `--max`), or null when `out`
 * is new. It must be the same repository, range and settings: a candidate is judged once, and the
 * candidates left are judged as the finished ones were. The report is written after the manifest,
 * so a task the manifest holds but the report does not list is qualified again.
 */
const retiredReason = "fewer than two stages with tests";

/** Settings absent from reports written before they existed, and what their absence meant. */
const absentMeans: Record<string, unknown> = { python: null, test_globs: [], test_runner: findTestRunner(undefined)!.name };

function earlierRun(
  out: string,
  repoGit: string,
  range: string,
  settings: MineSettings,
): { report: MineReport; tasks: ManifestTask[]; retired: number } | null {
  if (!existsSync(out) || readdirSync(out).every(isMineLockFile)) return null;
  const file = join(out, "mine-report.json");
  if (!existsSync(file))
    throw new InputError({
      file: out,
      path: "",
      message: "the output directory is not empty and holds no mining run to resume (no mine-report.json)",
    });
  const report = readJsonWith(file, mineReportSchema);
  const fresh = "resume with the options it was started with, or mine into a new --out";
  if (!report.settings)
    throw new InputError({
      file,
      path: "settings",
      message: `absent: this run was written before runs could be resumed; mine into a new --out`,
    });
  const problems = [
    ...(report.repo !== repoGit ? [{ file, path: "repo", message: `this run mined ${report.repo}, not ${repoGit}: ${fresh}` }] : []),
    ...(report.range !== range ? [{ file, path: "range", message: `this run scanned ${report.range}, not ${range}: ${fresh}` }] : []),
    // --max-stages and --path only choose which candidates there are; no verdict depends on them.
    ...Object.entries(settings)
      .filter(([k]) => !choosers.has(k))
      .flatMap(([k, v]) => {
        // `python`, `test_globs` and `test_runner` are absent from reports written before they existed: none was given.
        const was =
          k in absentMeans && report.settings![k as keyof MineSettings] === undefined
            ? absentMeans[k]
            : report.settings![k as keyof MineSettings];
        return JSON.stringify(was) === JSON.stringify(v)
          ? []
          : [{ file, path: `settings.${k}`, message: `this run used ${JSON.stringify(was)}, not ${JSON.stringify(v)}: ${fresh}` }];
      }),
  ];
  if (problems.length > 0) throw new InputError(problems);
  const manifestFile = join(out, "manifest.json");
  const listed = new Set(report.mined.map((m) => m.task));
  const tasks = (existsSync(manifestFile) ? readJsonWith(manifestFile, taskManifestReadSchema).tasks : []).filter((t) => listed.has(t.id));
  const kept = new Set(tasks.map((t) => t.id));
  report.mined = report.mined.filter((m) => kept.has(m.task));
  dropTaskDirs(out, kept);
  report.warnings = [];
  // Stages no longer need a test of their own: candidates rejected for want of one are judged again.
  const retired = report.rejected.filter((r) => r.reason === retiredReason).length;
  report.rejected = report.rejected.filter((r) => r.reason !== retiredReason);
  delete report.rejected_by_reason[retiredReason];
  report.settings.max_stages = settings.max_stages;
  report.settings.paths = settings.paths;
  return { report, tasks, retired };
}

/**
 * `--known`: the candidates (by provenance) that these manifests already hold for this repository,
 * so that mining a range again (with other --path, after a shipped run) does not qualify them again.
 * A manifest with no task of the repository is refused: it is most likely the wrong file.
 */
function knownCandidates(files: readonly string[], repoGit: string): Map<string, { task: string; manifest: string }> {
  const known = new Map<string, { task: string; manifest: string }>();
  const problems = [];
  for (const file of files) {
    if (!existsSync(file)) {
      problems.push({ file, path: "", message: "not found (--known takes a manifest.json)" });
      continue;
    }
    const m = readJsonWith(file, taskManifestReadSchema);
    const ours = m.tasks.filter((t) => m.repos[t.repo]?.git === repoGit);
    if (ours.length === 0)
      problems.push({ file, path: "tasks", message: `no task of ${repoGit}: --known takes a manifest of the repository being mined` });
    for (const t of ours) if (!known.has(t.provenance)) known.set(t.provenance, { task: t.id, manifest: file });
  }
  if (problems.length > 0) throw new InputError(problems);
  return known;
}

/**
 * Known candidates are listed in the report (with --known), not judged: they join `decided`. A
 * candidate this run decided before stays as it was. Returns how many were skipped.
 */
function skipKnown(
  candidates: readonly Candidate[],
  known: ReadonlyMap<string, { task: string; manifest: string }>,
  decided: Set<string>,
  report: MineReport,
  listed: boolean,
): number {
  const skipped = candidates.filter((c) => known.has(c.provenance) && !decided.has(c.provenance));
  for (const c of skipped) decided.add(c.provenance);
  if (listed) report.known = skipped.map((c) => ({ candidate: c.provenance, ...known.get(c.provenance)! }));
  else delete report.known;
  return skipped.length;
}

/** A candidate's test runs in this process, in a directory of the verifier's scratch. */
function localTester(dataset: Dataset, gitDir: string, repo: ManifestRepo, scratchRoot: string): CandidateTester {
  return (input) => {
    const work = mkdtempSync(join(scratchRoot, "cand-"));
    return runCandidateTests(dataset, gitDir, repo, work, input).finally(() => rmSync(work, { recursive: true, force: true }));
  };
}

/**
 * `tasks mine`: scans a repository's history for multi-stage candidates, qualifies each by running
 * its tests after every stage, and writes the ones that qualify as a dataset, with `manifest.json`
 * (what `datasets materialize` needs) and `mine-report.json` (seen, mined, rejected by reason).
 * Both are written after every candidate; run again on the same `--out`, it resumes where it stopped.
 */
export async function mineTasks(opts: MineOptions): Promise<MineReport> {
  // One miner per --out: two would each save their own view of the run, and the last save loses the
  // other's tasks (a resume started while the first still ran did exactly that).
  const claim = claimDir(opts.out, mineLockKind);
  process.on("exit", claim.release);
  try {
    const report = await mineInto(claim.dir, opts);
    claim.release();
    return report;
  } catch (e) {
    // A run refused before it wrote anything leaves no directory it made.
    claim.abandon(false);
    throw e;
  } finally {
    process.off("exit", claim.release);
  }
}

const mineLockKind: DirLockKind = { lockName: "mine.lock", what: "tasks mine", dirNoun: "output directory" };
const isMineLockFile = (name: string) => isLockFileOf(mineLockKind.lockName, name);

/** The repository materialized, the earlier run (if resumed) and the candidates of the range. */
async function openMining(out: string, opts: MineOptions) {
  const name = repoNameOf(opts.url ?? opts.repo);
  const repo = manifestRepo(opts);
  const range = opts.range ?? "HEAD";
  const settings = settingsOf(opts);
  const earlier = earlierRun(out, repo.git, range, settings);
  const known = knownCandidates(opts.known ?? [], repo.git);
  const local: ManifestRepo = { ...repo, git: isRemoteSource(opts.repo) ? opts.repo : resolve(opts.repo) };
  const dataset: Dataset = {
    root: out,
    manifest: { name: opts.name ?? `${name}-mined`, version: "1", repos: { [name]: datasetRepoOf(local) } },
    tasks: [],
  };
  const gitDir = (await materializeRepo(dataset, name)).gitDir;
  if (opts.setupCommit !== undefined) await pinSetupCommit(gitDir, opts.setupCommit, [repo, dataset.manifest.repos[name]!]);
  const tip = await gitTry(["--git-dir", gitDir, "rev-list", "-n", "1", range]);
  if (tip.code !== 0)
    throw new InputError({ file: opts.repo, path: "--range", message: `"${range}" is not a revision range of this repository` });
  await checkPaths(gitDir, tip.stdout.trim(), opts.paths ?? []);
  const scan = await findCandidates(gitDir, range, sourceMatcher(repo), testFileMatcher(repo), opts.maxStages, opts.paths ?? []);
  return { name, repo, range, settings, earlier, known, dataset, gitDir, tip, scan };
}

/** Jobs that were already running when --max was reached: their tasks are left to a resumed run
 * (save() keeps the tasks in history order, so the first --max stay). */
function trimToMax(out: string, max: number, manifest: TaskManifest, report: MineReport): void {
  manifest.tasks.splice(max);
  const kept = new Set(manifest.tasks.map((t) => t.id));
  report.mined = report.mined.filter((m) => kept.has(m.task));
  dropTaskDirs(out, kept);
}

/** The report to fill (the earlier run's, when resumed) and the candidates it has decided, said on the console. */
function startReport(
  out: string,
  opts: MineOptions,
  m: Pick<Awaited<ReturnType<typeof openMining>>, "repo" | "range" | "settings" | "earlier" | "known" | "scan">,
): { report: MineReport; decided: Set<string> } {
  const { repo, range, settings, earlier, known, scan } = m;
  const report: MineReport = earlier?.report ?? {
    format: MINE_REPORT_FORMAT,
    repo: repo.git,
    range,
    settings,
    commits_seen: 0,
    candidates_seen: 0,
    mined: [],
    rejected: [],
    rejected_by_reason: {},
    warnings: [],
  };
  Object.assign(report, { commits_seen: scan.commits, candidates_seen: scan.candidates.length });
  opts.onLine?.(`${scan.commits} commits, ${scan.candidates.length} candidate(s)`);
  const decided = new Set([...report.mined.map((m) => m.provenance), ...report.rejected.map((r) => r.candidate)]);
  const skipped = skipKnown(scan.candidates, known, decided, report, opts.known !== undefined);
  if (skipped > 0) opts.onLine?.(`${skipped} candidate(s) already held by --known manifests: not qualified again`);
  if (earlier) {
    const again = earlier.retired > 0 ? ` (${earlier.retired} rejected as "${retiredReason}", a rule since retired, are judged again)` : "";
    opts.onLine?.(
      `resuming ${out}: ${report.mined.length} mined and ${report.rejected.length} rejected before, ${scan.candidates.filter((c) => !decided.has(c.provenance)).length} left${again}`,
    );
  }
  return { report, decided };
}

async function mineInto(out: string, opts: MineOptions): Promise<MineReport> {
  if (!isRemoteSource(opts.repo) && !existsSync(opts.repo))
    throw new InputError({ file: opts.repo, path: "", message: "repository not found" });
  const { name, repo, range, settings, earlier, known, dataset, gitDir, tip, scan } = await openMining(out, opts);
  const { report, decided } = startReport(out, opts, { repo, range, settings, earlier, known, scan });
  mkdirSync(join(out, "tasks"), { recursive: true });
  writeJsonAtomic(join(out, "dataset.json"), dataset.manifest);
  // The verifier's scratch: its test runs' process groups are recorded, so that a stopped or killed
  // run leaves nothing behind (the signal handler, or the next run's reaping, ends and removes them).
  for (const notice of reapNotices(reapStaleScratch())) opts.onLine?.(`warning: ${notice}`);
  const manifest: TaskManifest = {
    format: TASK_MANIFEST_FORMAT,
    name: dataset.manifest.name,
    version: "1",
    repos: { [name]: repo },
    tasks: earlier?.tasks ?? [],
  };
  // With several jobs candidates finish in any order; the files keep the history's order.
  const rank = new Map(scan.candidates.map((c, i) => [c.provenance, i]));
  const byRank =
    <T>(key: (x: T) => string) =>
    (a: T, b: T) =>
      (rank.get(key(a)) ?? -1) - (rank.get(key(b)) ?? -1);
  const save = () => {
    manifest.tasks.sort(byRank((t) => t.provenance));
    report.mined.sort(byRank((m) => m.provenance));
    report.rejected.sort(byRank((r) => r.candidate));
    writeJsonAtomic(join(out, "manifest.json"), manifest);
    writeJsonAtomic(join(out, "mine-report.json"), report);
  };
  // On disk before the first candidate: a run stopped at any moment can be resumed (without the
  // report, the next run would find a dataset directory it cannot tell from someone else's).
  save();
  const facts = { out, name, dataset, repo, tip: tip.stdout.trim(), candidates: scan.candidates.length };
  const remote = opts.backend ? await opts.backend.open(facts, (l) => opts.onLine?.(l)) : null;
  const scratch = openScratch();
  const ctx: Ctx = { opts, dataset, name, repo, gitDir, report, test: remote?.test ?? localTester(dataset, gitDir, repo, scratch.root) };
  const full = () => opts.max !== undefined && manifest.tasks.length >= opts.max;
  let failure: unknown = null;
  try {
    await mapPool(
      scan.candidates.filter((c) => !decided.has(c.provenance)),
      remote?.jobs ?? opts.jobs ?? 1,
      async (c) => {
        if (full() || failure !== null) return;
        try {
          const judged = await mineCandidate(ctx, c);
          if (judged) {
            writeDerivedTask(join(out, "tasks"), await deriveTask(gitDir, repo, judged.entry));
            // Together and with no await before save(): another job's save() in between would otherwise
            // write a report that lists this task while the manifest does not hold it yet.
            manifest.tasks.push(judged.entry);
            report.mined.push(judged.mined);
          }
          save();
          // --max reached: candidates whose tests no worker has started are left to a resumed run.
          if (full()) await remote?.withdraw();
        } catch (e) {
          // (A candidate withdrawn after --max was reached ends here too: it stays undecided.)
          if (!full()) failure ??= e;
        }
      },
    );
  } finally {
    scratch.close();
    await remote?.close();
  }
  if (failure !== null) throw failure;
  if (opts.max !== undefined && manifest.tasks.length > opts.max) trimToMax(out, opts.max, manifest, report);
  save();
  if (manifest.tasks.length > 0) report.warnings.push(...localityWarnings(out));
  writeJsonAtomic(join(out, "mine-report.json"), report);
  return report;
}
