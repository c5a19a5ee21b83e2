import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { InfraFault } from "../core/infra-fault.js";
import { applyExact } from "./apply-patch.js";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import { baseNotFoundHint, baseOnlyCheckoutAt, materializeRepo, resolveBase, type MaterializedRepo } from "../dataset/repo-cache.js";
import { prepareEnvironment, type PreparedEnv } from "./env-cache.js";
import { testEnv } from "./scrubbed-env.js";
import { realPythonBin } from "../confine/bubblewrap.js";
import type { ConfineBackend } from "../confine/backend.js";
import { confineWherePossible, defaultConfineBackend } from "../confine/registry.js";
import { dropNotFound } from "./missing-ids.js";
import { createCgroup, describeLimits, type ProcessCgroup } from "../confine/cgroups.js";
import { formatSize, type Limits } from "../confine/limits.js";
import { prepareLauncher, testPython } from "./launcher-files.js";
import { lookupCase, runTests, type TestRun } from "./test-run.js";
import type { TestRunner } from "./test-runner.js";
import { isTestModule } from "../dataset/test-id-paths.js";
import { findTestRunner, testRunnerNames } from "./test-runners.js";

/**
 * A task's test-bed: a fresh checkout of its base, its cached environment, and its test command run
 * there with a scrubbed environment and a deadline. Shared by verify and qualify.
 */

/** The repository's identity for the environment cache: its URL, or `local` (local bases are content-addressed commits). */
export function repoIdentity(dataset: Dataset, repoName: string): string {
  const spec = dataset.manifest.repos[repoName];
  return spec && "git" in spec ? `git:${spec.git}` : "local";
}

/** F2P then P2P, each id once. */
export function requiredTests(task: LoadedTask): string[] {
  return [...new Set([...task.verifier.fail_to_pass, ...task.verifier.pass_to_pass])];
}

/** The environment a task runs in: its repository's, with the task's variant (version) laid over it. */
export function taskEnvironment(
  dataset: Dataset,
  task: LoadedTask,
): { setup: string[]; test_command?: string; test_runner?: string; setup_commit?: string; python?: string } {
  const env = dataset.manifest.repos[task.repo]?.environment;
  const variant = task.environment === undefined ? undefined : env?.variants?.[task.environment];
  if (task.environment !== undefined && variant === undefined) {
    throw new InfraFault(
      `task ${task.id}: environment "${task.environment}" is not among repository ${task.repo}'s environment.variants`,
      false,
    );
  }
  const testCommand = variant?.test_command ?? env?.test_command;
  const testRunner = variant?.test_runner ?? env?.test_runner;
  const python = variant?.python ?? env?.python;
  return {
    ...(python !== undefined ? { python } : {}),
    ...(testRunner !== undefined ? { test_runner: testRunner } : {}),
    setup: variant?.setup ?? env?.setup ?? [],
    ...(testCommand !== undefined ? { test_command: testCommand } : {}),
    ...(variant !== undefined
      ? variant.setup_commit !== undefined
        ? { setup_commit: variant.setup_commit }
        : {}
      : env?.setup_commit !== undefined
        ? { setup_commit: env.setup_commit }
        : {}),
  };
}

/** The test runner the task's repository (or its variant) names: `environment.test_runner`, default pytest. */
export function testRunnerOf(dataset: Dataset, task: LoadedTask): TestRunner {
  const name = taskEnvironment(dataset, task).test_runner;
  const runner = findTestRunner(name);
  if (runner === undefined)
    throw new InfraFault(
      `task ${task.id}: repository ${task.repo} names test runner "${name}", which is none of: ${testRunnerNames().join(", ")}`,
      false,
    );
  return runner;
}

/**
 * Whether a file is a test module the task's runs collect when named (`--suite touched`): by pytest's
 * naming (`test_x.py`, `x_test.py`, `x_tests.py`) or by the task's runner's own (unittest's `test*.py`,
 * so `tests/tests.py` and `testops.py` are modules too).
 */
export function isTestModuleOf(dataset: Dataset, task: LoadedTask): (path: string) => boolean {
  const runner = testRunnerOf(dataset, task);
  return (path) => isTestModule(path) || runner.testModule.test(path);
}

export function testCommandOf(dataset: Dataset, task: LoadedTask): string {
  return task.verifier.command ?? taskEnvironment(dataset, task).test_command ?? testRunnerOf(dataset, task).defaultCommand;
}

export interface PreparedCheckout {
  repo: MaterializedRepo;
  commit: string;
}

/** A fresh checkout of the task's base at `dest` (never an agent's workspace), holding nothing later than the base. */
export async function freshCheckout(dataset: Dataset, task: LoadedTask, dest: string): Promise<PreparedCheckout> {
  let repo: MaterializedRepo;
  try {
    repo = await materializeRepo(dataset, task.repo);
  } catch (e) {
    throw new InfraFault(`repository ${task.repo} is not available: ${(e as Error).message}`, true);
  }
  const commit = await resolveBase(repo, task.base);
  if (commit === null) throw new InfraFault(`base ${task.base} not found in repository ${task.repo}${baseNotFoundHint(repo)}`, false);
  mkdirSync(dirname(dest), { recursive: true });
  await baseOnlyCheckoutAt(repo, commit, dest);
  return { repo, commit };
}

/**
 * Prepares the cached environment of a task (its repository's, or its variant's): at the base
 * commit, or once at the variant's `setup_commit` for every task of the variant. Set-up failures
 * are InfraFaults.
 */
export async function environmentFor(
  dataset: Dataset,
  task: LoadedTask,
  co: PreparedCheckout,
  log: (t: string) => void,
  setupTimeoutMs: number,
): Promise<PreparedEnv> {
  const environment = taskEnvironment(dataset, task);
  let commit = co.commit;
  if (environment.setup_commit !== undefined) {
    const at = await resolveBase(co.repo, environment.setup_commit);
    if (at === null)
      throw new InfraFault(
        `environment set-up commit ${environment.setup_commit} not found in repository ${task.repo}${baseNotFoundHint(co.repo)}`,
        false,
      );
    commit = at;
  }
  return prepareEnvironment({
    repo: co.repo,
    repoIdentity: repoIdentity(dataset, task.repo),
    commit,
    setup: environment.setup,
    ...(environment.python !== undefined ? { python: environment.python } : {}),
    timeoutMs: setupTimeoutMs,
    log,
  });
}

/** Where and how one test run happens. */
export interface TestBedRun {
  checkout: string;
  /** Scratch directory outside the checkout: report, launcher, private HOME and TMPDIR. */
  scratch: string;
  env: PreparedEnv;
  /** The base's runner configuration file (pytest's inifile; fixed before the artifact is applied), or null. */
  inifile: string | null;
  /** How the run is confined (default: the default backend, bubblewrap: the checkout, the environment read-only and nothing else, without network). */
  confine?: ConfineBackend;
  /** Resource limits of the test run's processes, in a group of their own (default: none). */
  limits?: Limits;
}

/** The scrubbed test environment, with the real interpreter's directory in front of the caller's PATH (no shims inside a sandbox). */
function bedEnv(bed: TestBedRun, runner: TestRunner, home: string, tmp: string): NodeJS.ProcessEnv {
  const callerPath = process.env.PATH ?? "/usr/bin:/bin";
  const realBin = realPythonBin([...bed.env.pathPrefix, callerPath].join(":"));
  const pathPrefix = [...bed.env.pathPrefix, ...(realBin ? [realBin] : [])];
  return { ...testEnv({ home, tmp, pathPrefix, vars: { ...runner.env.defaults, ...bed.env.vars } }), ...runner.env.forced };
}

/** Most times a run is repeated without the ids pytest said do not exist. */
const maxNotFoundReruns = 3;

/**
 * Runs a task's test command in the test-bed's checkout, sandboxed unless told otherwise. When the
 * runner refuses requested ids that do not exist (pytest: exit 4 before running anything), the run is
 * repeated without them, and they are listed in `notFound` (their status is `missing`, not a fault).
 */
export async function runTaskTests(
  dataset: Dataset,
  task: LoadedTask,
  bed: TestBedRun,
  testIds: readonly string[] | null,
): Promise<TestRun> {
  const runner = testRunnerOf(dataset, task);
  const once = (ids: readonly string[] | null) => runTaskTestsOnce(dataset, task, bed, ids);
  let run = await once(testIds);
  if (testIds === null) return run;
  let ids = [...testIds];
  const expanded = new Map<string, string[]>();
  const notFound: string[] = [];
  for (let i = 0; run.exitCode === 4 && i < maxNotFoundReruns; i++) {
    const step = dropNotFound(ids, runner.notFoundTargets(`${run.stdout}\n${run.stderr}`), expanded);
    if (!step.progress) break;
    notFound.push(...step.dropped);
    ids = step.next;
    if (ids.length === 0) break;
    run = await once(ids);
  }
  // Parameter cases requested through their function: the ones still unreported do not exist.
  for (const group of expanded.values())
    notFound.push(...group.filter((id) => !notFound.includes(id) && lookupCase(run, id) === undefined));
  run.notFound = notFound;
  return run;
}

/**
 * The whole suite (or `only` these test files) once in a checkout made by the harness from the
 * dataset's own patches (qualification, mining). No agent's code runs, but the dataset's tests are
 * code of the repository's history: they run in the test-run sandbox (the checkout, its scratch and
 * the environment only; a private /tmp, no network, a PID namespace), so a test cannot write the
 * caller's /tmp or plant a record in the harness's scratch. Each run has its own checkout and scratch,
 * as the verifier's runs do, so instability is what differs between such runs (order, time, randomness,
 * the path it runs at), not state left by an earlier run. Where bubblewrap cannot start, as the caller.
 * The runner's configuration is the checkout's own.
 */
export async function runWholeSuite(
  dataset: Dataset,
  task: LoadedTask,
  checkout: string,
  scratch: string,
  env: PreparedEnv,
  only: readonly string[] | null = null,
): Promise<TestRun> {
  const inifile = await testRunnerOf(dataset, task).locateConfig(testPython(env.pathPrefix), checkout);
  return runTaskTests(dataset, task, { checkout, scratch, env, inifile, confine: confineWherePossible() }, only);
}

/** One run of the task's test command in the test-bed. */
async function runTaskTestsOnce(dataset: Dataset, task: LoadedTask, bed: TestBedRun, testIds: readonly string[] | null): Promise<TestRun> {
  const runner = testRunnerOf(dataset, task);
  const home = join(bed.scratch, "home");
  const tmp = join(bed.scratch, "tmp");
  const reportDir = join(bed.scratch, "report");
  for (const d of [home, tmp, reportDir]) mkdirSync(d, { recursive: true });
  const env = bedEnv(bed, runner, home, tmp);
  const readable = [join(bed.scratch, "runner"), ...(bed.env.dir ? [bed.env.dir] : [])];
  const confined = (bed.confine ?? defaultConfineBackend()).testRun({
    checkout: bed.checkout,
    writable: [bed.checkout, reportDir, home, tmp],
    readable,
    python: testPython(bed.env.pathPrefix),
    env,
  });
  const inside = confined.checkoutInside ?? bed.checkout;
  // The base's configuration file, where the run sees it (inside the checkout it moved with it).
  const rel = bed.inifile === null ? null : relative(bed.checkout, bed.inifile);
  const inifile = rel === null || rel.startsWith("..") || isAbsolute(rel) ? bed.inifile : join(inside, rel);
  const launcher = prepareLauncher(join(bed.scratch, "runner"), runner, inifile);
  const confine = confined.wrap;
  const cgroup = bed.limits ? createCgroup(bed.limits) : null;
  const wrap = (argv: readonly string[]) => {
    const inner = confine ? confine(argv) : { command: argv[0]!, args: argv.slice(1) };
    return cgroup ? cgroup.wrap(inner.command, inner.args) : inner;
  };
  try {
    const run = await runTests({
      checkout: bed.checkout,
      template: testCommandOf(dataset, task),
      testIds,
      junitPath: join(reportDir, "report.xml"),
      env,
      timeoutMs: task.verifier.timeout_s * 1000,
      runner,
      launcher,
      checkoutInside: inside,
      ...(confine || cgroup ? { wrap } : {}),
    });
    if (cgroup) run.limits = limitsNote(cgroup, bed.limits!);
    run.sandbox = confined.note;
    return run;
  } finally {
    await cgroup?.remove();
  }
}

/** What the verify log says about the run's limits, and whether the OOM killer ended any of its processes. */
function limitsNote(cgroup: ProcessCgroup, limits: Limits): string {
  const kills = cgroup.oomKills();
  const oom =
    kills > 0
      ? `; out of memory: the memory limit (${limits.memory === null ? "?" : formatSize(limits.memory)}) was reached, the kernel killed ${kills} process(es)`
      : "";
  return `${describeLimits(cgroup.record)}${oom}`;
}

export function describeRun(run: TestRun): string {
  return [
    `$ ${run.command}`,
    ...(run.notFound.length > 0 ? [`not found (missing): ${run.notFound.join(" ")}`] : []),
    ...(run.sandbox ? [`sandbox: ${run.sandbox}`] : []),
    ...(run.limits ? [`limits: ${run.limits}`] : []),
    `exit ${run.exitCode ?? `signal ${run.signal}`}${run.timedOut ? " (timed out: process group killed)" : ""} after ${run.durationMs} ms; results from ${run.source}${run.reportError ? ` (${run.reportError})` : ""}`,
    "--- stdout ---",
    run.stdout.slice(-200_000),
    "--- stderr ---",
    run.stderr.slice(-50_000),
    "",
  ].join("\n");
}

export interface NamedPatch {
  name: string;
  text: string;
}

/**
 * A fresh checkout of the task's base at `dest` with `patches` applied exactly, in order (each
 * written to `scratch` first). Returns why a patch does not apply, or the checkout.
 */
export async function checkoutWithPatches(
  dataset: Dataset,
  task: LoadedTask,
  dest: string,
  scratch: string,
  patches: readonly NamedPatch[],
): Promise<PreparedCheckout | string> {
  const co = await freshCheckout(dataset, task, dest);
  for (const p of patches) {
    if (p.text.trim() === "") continue;
    const file = join(scratch, p.name);
    writeFileSync(file, p.text);
    const err = await applyExact(dest, file);
    if (err) return `${p.name} does not apply: ${err}`;
  }
  return co;
}
