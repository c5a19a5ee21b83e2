import { InvalidArgumentError, Option, type Command } from "commander";
import { mineTasks, type MineOptions } from "../../mine/mine.js";
import { ExitCode } from "../exit-codes.js";
import { collect, parsePositive } from "../options.js";
import { addWriterOptions, checkWriterFlags, reportWriting, writerFromFlags, type WriterFlags } from "../writer-model.js";
import { writeRequestsInDataset } from "../../mine/write-requests.js";
import { abandonOpenScratch } from "../../testbed/verifier-scratch.js";
import { queueUrlEnv } from "../../queue/queue-url.js";
import { securedQueueTarget } from "./queue.js";
import type { MineBackend } from "../../mine/candidate-tests.js";
import { findTestRunner, testRunnerNames } from "../../testbed/test-runners.js";

/** `--queue`: BullMQ and its Redis client are loaded only then (a quarter of a second of CPU at every start otherwise). */
async function queueMine(queue: string | boolean): Promise<MineBackend> {
  const target = securedQueueTarget(queue);
  const { queueMineBackend } = await import("../../queue/mine-on-queue.js");
  return queueMineBackend(target);
}

/** `--test-runner`: a registered runner's name (the list is the registry's, so a runner added there is accepted here). */
function parseTestRunner(value: string): string {
  if (findTestRunner(value) === undefined)
    throw new InvalidArgumentError(`--test-runner must be one of ${testRunnerNames().join(", ")}, got "${value}"`);
  return value;
}

/** The CLI flags are the options of `mine`, less what the command supplies itself. */
type MineFlags = Omit<MineOptions, "repo" | "onLine" | "paths" | "backend" | "testGlobs"> &
  WriterFlags & { path?: string[]; testGlob?: string[]; queue?: string | boolean };

/** `--test-glob`: a repository-relative glob (no leading `/` or `..`: it is matched against paths in the repository). */
function collectTestGlob(value: string, previous: string[] = []): string[] {
  if (value.trim() === "" || value.startsWith("/") || value.split("/").includes(".."))
    throw new InvalidArgumentError(`--test-glob takes a glob relative to the repository root, such as 'Tests/**', got "${value}"`);
  return [...previous, value];
}

/** `--writer-model`: after mining, the request texts of the mined tasks are written (as `tasks write-requests OUT`). */
async function writeMinedRequests(out: string, o: MineFlags): Promise<number> {
  const writer = await writerFromFlags(o);
  if (!writer) return ExitCode.ok;
  const summary = await writeRequestsInDataset(out, { writer, onLine: (l) => process.stderr.write(`${l}\n`) });
  const flags = [
    `--writer-model ${writer.model}`,
    ...(o.writerBaseUrl ? [`--writer-base-url ${o.writerBaseUrl}`] : []),
    ...(o.writerApiKeyEnv !== "OPENAI_API_KEY" ? [`--writer-api-key-env ${o.writerApiKeyEnv}`] : []),
  ].join(" ");
  return reportWriting(out, summary, `switch-swe tasks write-requests ${out} ${flags}`);
}

/** `tasks mine REPO --out DATASET [--range A..B] [--max N] [--runs N]`, added to the `tasks` group. */
export function addMineCommand(tasks: Command): void {
  const cmd = tasks
    .command("mine")
    .description(
      "scan a git repository's history for changes that came in several substantive steps with tests (merged branches, chains of commits on one feature) " +
        "and write the ones whose tests qualify as multi-stage tasks, with manifest.json and mine-report.json",
    )
    .argument("<repo>", "git repository: a path, a bundle or a URL")
    .requiredOption(
      "--out <dataset>",
      "dataset directory to create, or the directory of a run to resume (same repository, range and options)",
    )
    .option("--range <A..B>", "revision range to scan (default HEAD: the whole first-parent history)")
    .option("--max <n>", "stop after this many tasks", parsePositive("--max"))
    .option("--runs <n>", "suite runs per state (a test must behave the same in each)", parsePositive("--runs"), 3)
    .option("--max-stages <n>", "most steps per candidate", parsePositive("--max-stages"), 5)
    .option(
      "--timeout-s <n>",
      "deadline of one test run, recorded as each task's verifier.timeout_s (a test that hangs before its fix costs this per run)",
      parsePositive("--timeout-s"),
      1800,
    )
    .option("--jobs <n>", "candidates qualified at once (each runs its own test processes)", parsePositive("--jobs"), 1)
    .option(
      "--path <dir>",
      "only candidates whose source changes all lie under this directory (repeatable; e.g. one subsystem, for tasks that share a directory)",
      collect,
    )
    .option(
      "--test-glob <glob>",
      "files matching this glob are tests too, fixtures included, beyond the defaults (repeatable; e.g. 'Tests/**' for a capitalised test tree)",
      collectTestGlob,
    )
    .option(
      "--known <manifest>",
      "skip candidates this manifest already holds (the same merge or chain), e.g. shipped tasks when a range is mined again (repeatable)",
      collect,
    )
    .option("--name <name>", "dataset name (default <repo>-mined)")
    .option(
      "--test-runner <name>",
      `the runner the tests run under, recorded as environment.test_runner (${testRunnerNames().join(", ")}; default ${testRunnerNames()[0]})`,
      parseTestRunner,
    )
    .option(
      "--test-command <cmd>",
      "test command ({tests}, {junit}); default the runner's own (pytest: with a JUnit report; unittest: python3 -m unittest -v)",
    )
    .option("--setup <cmd>", "environment set-up command (repeatable)", collect)
    .option("--license <spdx>", "the repository's license, recorded in the manifest")
    .option(
      "--url <url>",
      "the repository's public URL, recorded in the manifest when REPO is a local mirror or bundle (also names the repository)",
    )
    .option(
      "--python <x.y>",
      "the Python minor version the set-up's venv must have: the environment is then pinned, and a set-up that does not give exactly its pins is refused",
      parsePythonMinor,
    )
    .option(
      "--setup-commit <rev>",
      "run set-up once at this revision and share the environment across tasks (set-up must not depend on the checkout)",
    )
    .addOption(
      new Option("--suite <which>", "per state, run the whole suite or only the test files the steps touch")
        .choices(["whole", "touched"])
        .default("whole"),
    )
    .option(
      "--queue [url]",
      `run the candidates' tests as jobs for \`switch-swe worker\`s on this Redis queue (default: $${queueUrlEnv}); --jobs is then the workers' business`,
    );
  addWriterOptions(cmd, false).action(mineFromFlags);
}

/** `tasks mine`: mine, saying on a stop what is kept; then write the mined tasks' requests when a writer is named. */
async function mineFromFlags(repo: string, o: MineFlags): Promise<void> {
  checkWriterFlags(o);
  const backend = o.queue === undefined ? undefined : await queueMine(o.queue);
  // Every decided candidate is already on disk (manifest.json, then mine-report.json, after each
  // one): a stop loses only the candidates under way, but their test runs and scratch must go too.
  const onSignal = (sig: NodeJS.Signals) => {
    const left = abandonOpenScratch();
    process.stderr.write(
      `\n${sig}: stopped; ended ${left.ended.length} process group(s) (test runs, git) and removed the scratch; every candidate decided so far is saved in ${o.out}: run the same command again to resume\n`,
    );
    process.exit(130);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const r = await mineTasks({
    repo,
    out: o.out,
    runs: o.runs,
    maxStages: o.maxStages,
    timeoutS: o.timeoutS,
    jobs: o.jobs,
    ...(o.range !== undefined ? { range: o.range } : {}),
    ...(o.max !== undefined ? { max: o.max } : {}),
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.testCommand !== undefined ? { testCommand: o.testCommand } : {}),
    ...(o.testRunner !== undefined ? { testRunner: o.testRunner } : {}),
    ...(o.setup !== undefined ? { setup: o.setup } : {}),
    ...(o.license !== undefined ? { license: o.license } : {}),
    ...(o.url !== undefined ? { url: o.url } : {}),
    ...(o.setupCommit !== undefined ? { setupCommit: o.setupCommit } : {}),
    ...(o.python !== undefined ? { python: o.python } : {}),
    ...(o.suite !== undefined ? { suite: o.suite } : {}),
    ...(o.path !== undefined ? { paths: o.path } : {}),
    ...(o.known !== undefined ? { known: o.known } : {}),
    ...(o.testGlob !== undefined ? { testGlobs: o.testGlob } : {}),
    ...(backend ? { backend } : {}),
    onLine: (l) => process.stderr.write(`${l}\n`),
  }).finally(() => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  });
  const reasons = Object.entries(r.rejected_by_reason).map(([k, n]) => `${n} ${k}`);
  const known = r.known && r.known.length > 0 ? `, ${r.known.length} already known` : "";
  process.stdout.write(
    `${r.commits_seen} commits, ${r.candidates_seen} candidate(s): ${r.mined.length} mined, ${r.rejected.length} rejected${reasons.length > 0 ? ` (${reasons.join(", ")})` : ""}${known}; ${o.out}\n`,
  );
  for (const w of r.warnings) process.stderr.write(`warning: ${w}\n`);
  if (r.mined.length === 0) process.exitCode = ExitCode.checkFailed;
  else process.exitCode = await writeMinedRequests(o.out, o);
}

/** `--python`: a Python minor version such as 3.11. */
function parsePythonMinor(v: string): string {
  if (!/^3\.\d+$/.test(v)) throw new InvalidArgumentError(`--python must be a Python minor version such as 3.11, got "${v}"`);
  return v;
}
