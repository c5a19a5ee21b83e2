import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { InfraFault } from "../core/infra-fault.js";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import { checkoutAt, materializeRepo, resolveBase, type MaterializedRepo } from "../dataset/repo-cache.js";
import { prepareEnvironment, type PreparedEnv } from "./env-cache.js";
import { testEnv } from "./scrubbed-env.js";
import { bwrapArgs, bwrapProblem, pythonPrefixes, realPythonBin, type SandboxMode } from "../core/sandbox.js";
import { prepareLauncher, testPython } from "./pytest-runner.js";
import { defaultTestCommand, runTests, type TestRun } from "./test-run.js";

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

export function testCommandOf(dataset: Dataset, task: LoadedTask): string {
  return task.verifier.command ?? dataset.manifest.repos[task.repo]?.environment?.test_command ?? defaultTestCommand;
}

export interface PreparedCheckout {
  repo: MaterializedRepo;
  commit: string;
}

/** A fresh checkout of the task's base at `dest` (never an agent's workspace). */
export async function freshCheckout(dataset: Dataset, task: LoadedTask, dest: string): Promise<PreparedCheckout> {
  let repo: MaterializedRepo;
  try {
    repo = await materializeRepo(dataset, task.repo);
  } catch (e) {
    throw new InfraFault(`repository ${task.repo} is not available: ${(e as Error).message}`, true);
  }
  const commit = await resolveBase(repo, task.base);
  if (commit === null) throw new InfraFault(`base ${task.base} not found in repository ${task.repo}`, false);
  mkdirSync(dirname(dest), { recursive: true });
  await checkoutAt(repo, commit, dest);
  return { repo, commit };
}

/** Prepares the cached environment of a task's repository; set-up failures are InfraFaults. */
export async function environmentFor(
  dataset: Dataset,
  task: LoadedTask,
  co: PreparedCheckout,
  log: (t: string) => void,
  setupTimeoutMs: number,
): Promise<PreparedEnv> {
  return prepareEnvironment({
    repo: co.repo,
    repoIdentity: repoIdentity(dataset, task.repo),
    commit: co.commit,
    setup: dataset.manifest.repos[task.repo]?.environment?.setup ?? [],
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
  /** The base's pytest configuration file (fixed before the artifact is applied), or null. */
  inifile: string | null;
  /** `bwrap` (default): the run sees the checkout, the environment (read-only) and nothing else, without network. */
  sandbox?: SandboxMode;
}

/** The scrubbed test environment, with the real interpreter's directory in front of the caller's PATH (no shims inside a sandbox). */
function bedEnv(bed: TestBedRun, home: string, tmp: string): NodeJS.ProcessEnv {
  const callerPath = process.env.PATH ?? "/usr/bin:/bin";
  const realBin = realPythonBin([...bed.env.pathPrefix, callerPath].join(":"));
  const pathPrefix = [...bed.env.pathPrefix, ...(realBin ? [realBin] : [])];
  return { ...testEnv({ home, tmp, pathPrefix, vars: bed.env.vars }), PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" };
}

function sandboxWrap(bed: TestBedRun, env: NodeJS.ProcessEnv, writable: readonly string[], readable: readonly string[]) {
  const problem = bwrapProblem();
  if (problem) throw new InfraFault(`the verifier's sandbox cannot start: ${problem} (or verify with --sandbox none)`, false);
  const system = pythonPrefixes(testPython(bed.env.pathPrefix), env.PATH ?? "");
  const binds = [...writable.map((src) => ({ src, rw: true })), ...readable.map((src) => ({ src }))];
  return (argv: readonly string[]) => ({ command: "bwrap", args: bwrapArgs({ binds, system, network: false, chdir: bed.checkout }, argv) });
}

/** Runs a task's test command in the test-bed's checkout, sandboxed unless told otherwise. */
export async function runTaskTests(dataset: Dataset, task: LoadedTask, bed: TestBedRun, testIds: readonly string[] | null): Promise<TestRun> {
  const home = join(bed.scratch, "home");
  const tmp = join(bed.scratch, "tmp");
  const reportDir = join(bed.scratch, "report");
  for (const d of [home, tmp, reportDir]) mkdirSync(d, { recursive: true });
  const launcher = prepareLauncher(join(bed.scratch, "runner"), bed.inifile);
  const env = bedEnv(bed, home, tmp);
  const readable = [join(bed.scratch, "runner"), ...(bed.env.dir ? [bed.env.dir] : [])];
  const wrap = (bed.sandbox ?? "bwrap") === "bwrap" ? sandboxWrap(bed, env, [bed.checkout, reportDir, home, tmp], readable) : undefined;
  return runTests({
    checkout: bed.checkout,
    template: testCommandOf(dataset, task),
    testIds,
    junitPath: join(reportDir, "report.xml"),
    env,
    timeoutMs: task.verifier.timeout_s * 1000,
    launcher,
    ...(wrap ? { wrap } : {}),
  });
}

export function describeRun(run: TestRun): string {
  return [
    `$ ${run.command}`,
    `exit ${run.exitCode ?? `signal ${run.signal}`}${run.timedOut ? " (timed out: process group killed)" : ""} after ${run.durationMs} ms; results from ${run.source}${run.reportError ? ` (${run.reportError})` : ""}`,
    "--- stdout ---",
    run.stdout.slice(-200_000),
    "--- stderr ---",
    run.stderr.slice(-50_000),
    "",
  ].join("\n");
}
