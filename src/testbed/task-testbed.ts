import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { InfraFault } from "../core/infra-fault.js";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import { checkoutAt, materializeRepo, resolveBase, type MaterializedRepo } from "../dataset/repo-cache.js";
import { prepareEnvironment, type PreparedEnv } from "./env-cache.js";
import { testEnv } from "./scrubbed-env.js";
import { prepareLauncher } from "./pytest-runner.js";
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

/** Runs a task's test command in `checkout` with the scrubbed environment of `env`. */
export async function runTaskTests(
  dataset: Dataset,
  task: LoadedTask,
  checkout: string,
  scratch: string,
  env: PreparedEnv,
  testIds: readonly string[] | null,
  baseInifile: string | null,
): Promise<TestRun> {
  const home = join(scratch, "home");
  const tmp = join(scratch, "tmp");
  mkdirSync(home, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  return runTests({
    checkout,
    template: testCommandOf(dataset, task),
    testIds,
    junitPath: join(scratch, "report", "report.xml"),
    env: { ...testEnv({ home, tmp, pathPrefix: env.pathPrefix, vars: env.vars }), PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" },
    timeoutMs: task.verifier.timeout_s * 1000,
    launcher: prepareLauncher(join(scratch, "runner"), baseInifile),
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
