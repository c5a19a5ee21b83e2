import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { InfraFault } from "../core/infra-fault.js";
import type { ConfineBackend } from "../confine/backend.js";
import type { Limits } from "../confine/limits.js";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import { applyExact, resetTree } from "../testbed/apply-patch.js";
import { detachGitDir, reattachGitDir, type BedGit } from "../testbed/bed-git.js";
import { heldOutPostImages, type HeldOutFile } from "../testbed/held-out-files.js";
import { applyKeptBlocks, placeHeldOut } from "./apply-artifact.js";
import { dropTestFiles } from "./artifact-filter.js";
import { envFingerprint, invalidateEnvironment, type PreparedEnv } from "../testbed/env-cache.js";
import { checkPatchPaths } from "./path-safety.js";
import { describeRun, environmentFor, freshCheckout, requiredTests, testCommandOf, testRunnerOf } from "../testbed/task-testbed.js";
import { testPython } from "../testbed/launcher-files.js";
import type { TestRunner } from "../testbed/test-runner.js";
import { parsePatch, splitPatch, type PatchBlock } from "../core/patch-blocks.js";
import { suspiciousReasons } from "./suspicious.js";
import { writtenLines } from "./written-lines.js";
import { verdictSchema, type TestStatus, type Verdict } from "../formats/verdict.js";
import { sha256 } from "../core/digest.js";
import { unappliedVerdict } from "./unapplied-verdict.js";
import type { CanaryRecord } from "./canaries.js";
import { mergedRecord, plantedLine, plantedRun, secondRun } from "./planted-run.js";

export interface VerifyArtifactOptions {
  dataset: Dataset;
  task: LoadedTask;
  /** The frozen artifact; null when the session left none (it did not finalize). */
  artifactText: string | null;
  /** sha256 of the artifact's bytes when the caller has it (hashed from the file: no second copy in memory). */
  artifactSha256?: string | null;
  /** A scratch directory for checkouts and reports (created; each attempt's files removed afterwards unless keepWork). */
  workRoot: string;
  /** Session id recorded in the verdict (default: the task id). */
  session?: string;
  /** Where the verification log is written (default: <workRoot>/verify.log). */
  logFile?: string;
  /** What the verdict's `log` field says (default: logFile). */
  logLabel?: string;
  /** Re-verifications after an infrastructure fault (default 2). */
  maxInfraRetries?: number;
  /** Deadline of the environment set-up (default 30 minutes). */
  setupTimeoutMs?: number;
  keepWork?: boolean;
  /** How test runs are confined (default: the default backend, bubblewrap: the checkout and the environment read-only, without network). */
  confine?: ConfineBackend;
  /** Resource limits of each test run (default: none). */
  limits?: Limits;
}

export const noArtifactError = "no artifact (session did not finalize)";

interface AttemptResult {
  applied: boolean;
  applyMethod: Verdict["apply_method"];
  applyError?: string;
  dropped: string[];
  tests: Record<string, TestStatus>;
  infra: InfraFault | null;
  timedOut: boolean;
  exitCode: number | null;
  resultSource: Verdict["result_source"];
  setupCached: boolean;
  notes: string[];
  suspicious: string[];
  canaries?: CanaryRecord;
}

/** The checkout an attempt tests in, its environment, and the runner configuration fixed from the base. */
interface TestBed {
  checkout: string;
  /** The harness's git over the checkout (its git directory outside it until the test run). */
  tree: BedGit;
  /** The held-out tests' post-images, from the pristine checkout. */
  heldOut: HeldOutFile[];
  env: PreparedEnv;
  python: string;
  inifile: string | null;
}

function emptyResult(required: readonly string[]): AttemptResult {
  return {
    applied: false,
    applyMethod: null,
    dropped: [],
    tests: Object.fromEntries(required.map((id) => [id, "missing" as TestStatus])),
    infra: null,
    timedOut: false,
    exitCode: null,
    resultSource: "none",
    setupCached: false,
    notes: [],
    suspicious: [],
  };
}

/** Splits the artifact, refuses unsafe paths, drops test files and runner channels; null when refused. */
function filterArtifact(
  opts: VerifyArtifactOptions,
  runner: TestRunner,
  res: AttemptResult,
  log: (t: string) => void,
): PatchBlock[] | null {
  const parsed = parsePatch(opts.artifactText ?? "");
  const blocks = parsed.blocks;
  if (parsed.firstIgnored) {
    const first = parsed.firstIgnored;
    res.notes.push(
      `${parsed.ignoredLines} line(s) of the artifact are neither a header nor a hunk line and were not applied (first: line ${first.line}: ${JSON.stringify(first.text)})`,
    );
    log(`ignored ${parsed.ignoredLines} line(s) outside every header and hunk (first: line ${first.line})\n`);
  }
  if (opts.artifactText !== null && opts.artifactText.trim() !== "" && blocks.length === 0) {
    res.applyError = "the artifact is not a patch (no file headers)";
    return null;
  }
  const unsafe = checkPatchPaths(blocks);
  if (unsafe) {
    res.applyError = `refused: ${unsafe}`;
    return null;
  }
  const { kept, dropped, runnerChannels } = dropTestFiles(blocks, opts.dataset.manifest.repos[opts.task.repo] ?? {}, opts.task.testsPatch, {
    runner,
    command: testCommandOf(opts.dataset, opts.task),
  });
  res.dropped = dropped;
  if (dropped.length > 0) log(`dropped from the artifact (test files and runner channels): ${dropped.join(", ")}\n`);
  if (runnerChannels.length > 0) res.notes.push(`runner channels dropped from the artifact: ${runnerChannels.join("; ")}`);
  res.suspicious = suspiciousReasons(
    kept,
    opts.task.stagePatches.flatMap((p) => splitPatch(p)),
  );
  return kept;
}

/**
 * filterArtifact, where nothing the artifact holds (a line of 20 MB, any malformed text) can fail the
 * verifier: an error while reading it is the artifact's failure, with the reason, never a fault.
 */
function readArtifact(opts: VerifyArtifactOptions, runner: TestRunner, res: AttemptResult, log: (t: string) => void): PatchBlock[] | null {
  try {
    return filterArtifact(opts, runner, res, log);
  } catch (e) {
    res.applyError = `the artifact could not be read: ${(e as Error).message}`;
    log(`${res.applyError}\n`);
    return null;
  }
}

/** The suspicious scan of what git wrote; an error reading it is itself a reason (the artifact made it). */
function scanned(scan: () => string[]): string[] {
  try {
    return scan();
  } catch (e) {
    return [`the artifact could not be scanned: ${(e as Error).message}`];
  }
}

/** A fresh checkout of the base, its environment, and the configuration file its runner reads there (before the artifact). */
async function setUpBed(opts: VerifyArtifactOptions, dir: string, res: AttemptResult, log: (t: string) => void): Promise<TestBed> {
  const checkout = join(dir, "checkout");
  const co = await freshCheckout(opts.dataset, opts.task, checkout);
  log(`checkout of ${opts.task.repo} at ${co.commit} in ${checkout}\n`);
  // No git the harness runs may read what the artifact writes: the git directory leaves the tree.
  const tree = detachGitDir(checkout, join(dir, "checkout.git"));
  const heldOut = await pristineHeldOut(opts.task, tree, dir);
  const env = await environmentFor(opts.dataset, opts.task, co, log, opts.setupTimeoutMs ?? 30 * 60_000);
  res.setupCached = env.cached;
  log(env.dir ? `environment ${env.dir} (${env.cached ? "cached" : "set up now"})\n` : "no set-up commands: no environment\n");
  const python = testPython(env.pathPrefix);
  const runner = testRunnerOf(opts.dataset, opts.task);
  let inifile: string | null;
  try {
    inifile = await runner.locateConfig(python, checkout);
  } catch (e) {
    throw new InfraFault(`could not read the base's ${runner.name} configuration: ${(e as Error).message}`, true);
  }
  log(`${runner.name} configuration fixed to ${inifile ?? "none (an empty inifile outside the checkout)"}\n`);
  return { checkout, tree, heldOut, env, python, inifile };
}

/** The held-out tests' post-images, from the checkout before the artifact touches it (then reset to the base). */
async function pristineHeldOut(task: LoadedTask, tree: BedGit, dir: string): Promise<HeldOutFile[]> {
  if (task.testsPatch.trim() === "") return [];
  const images = await heldOutPostImages(tree, task.testsPatch, join(dir, "tests.patch"));
  if ("error" in images) throw new InfraFault(`the held-out tests.patch does not apply: ${images.error}`, false);
  await resetTree(tree);
  return images.files;
}

/** Applies the kept blocks (path-checked, compared with the tree after), undoes the runner's configuration edits. */
async function applyArtifact(
  opts: VerifyArtifactOptions,
  bed: TestBed,
  kept: PatchBlock[],
  dir: string,
  res: AttemptResult,
  log: (t: string) => void,
): Promise<boolean> {
  const applied = await applyKeptBlocks(bed.tree, kept, dir, log);
  if ("error" in applied) {
    res.applyError = applied.error;
    return false;
  }
  res.applied = true;
  res.applyMethod = applied.method;
  if (applied.method === "empty") return true;
  const runner = testRunnerOf(opts.dataset, opts.task);
  const restored = await runner.restoreConfig(bed.tree, kept, bed.python, dir);
  if (restored.length > 0) {
    res.dropped = [...new Set([...res.dropped, ...restored])].sort();
    res.notes.push(`${runner.name} configuration changes were undone (base version restored): ${restored.join(", ")}`);
    log(`restored the base version of ${restored.join(", ")} (the artifact changed the ${runner.name} configuration it gives)\n`);
  }
  return true;
}

async function applyHeldOutTests(task: LoadedTask, checkout: string, dir: string): Promise<string | null> {
  if (task.testsPatch.trim() === "") return null;
  const testsFile = join(dir, "tests.patch");
  writeFileSync(testsFile, task.testsPatch);
  return applyExact(checkout, testsFile);
}

/** Runs the required tests and judges the run; an untrusted run is attributed by a control run. */
async function runAndJudge(
  opts: VerifyArtifactOptions,
  bed: TestBed,
  dir: string,
  res: AttemptResult,
  log: (t: string) => void,
): Promise<void> {
  const required = requiredTests(opts.task);
  const first = await plantedRun(opts, bed, dir, opts.task.verifier.fail_to_pass, opts.task.verifier.pass_to_pass, log);
  const { run, tests, record } = first;
  let distrust = first.distrust;
  log(describeRun(run));
  log(plantedLine(record));
  res.timedOut = run.timedOut;
  res.exitCode = run.exitCode;
  res.resultSource = run.source;
  res.tests = tests;
  res.canaries = record;
  if (distrust === null && !run.timedOut && opts.task.verifier.fail_to_pass.length > 0 && required.every((id) => tests[id] === "passed")) {
    // It would resolve: no verdict rests on one test process.
    const second = await secondRun(opts, bed, dir, first, log);
    res.canaries = mergedRecord(record, second.record);
    distrust = second.distrust;
    const disagree = Object.entries(second.disagree);
    if (distrust === null && disagree.length > 0) {
      res.tests = { ...tests, ...second.disagree };
      res.notes.push(
        `a second run of the fail-to-pass tests in a fresh process did not pass ${disagree.map(([id, s]) => `${id} (${s})`).join(", ")}; its outcome is kept`,
      );
    }
  }
  if (run.stream && run.stream.tamper.length > 0) res.suspicious.push(...run.stream.tamper.map((t) => `the runner saw: ${t}`));
  const env = bed.env;
  if (env.dir && env.fingerprint !== null && envFingerprint(env.dir) !== env.fingerprint) {
    invalidateEnvironment(env.dir);
    res.notes.push("the test run changed files of the cached environment; it will be rebuilt before its next use");
  }
  if (distrust) {
    // Whose crash is it? The same tests without the artifact tell.
    log(`untrusted run: ${distrust}; running the tests without the artifact to attribute it\n`);
    const control = await controlRun(opts, join(dir, "control"), bed, log);
    if (control !== null) throw new InfraFault(`${distrust}; without the artifact too (${control})`, true);
    res.notes.push(
      `${distrust}; without the artifact the tests run normally, so the artifact caused it and no reported outcome is believed`,
    );
    res.tests = Object.fromEntries(required.map((id) => [id, "error" as TestStatus]));
  } else if (run.exitCode === 0 && Object.values(res.tests).some((t) => t === "failed" || t === "error")) {
    res.notes.push("the test command exited 0 although the report has a required test failing; the report was trusted");
  }
}

async function attempt(opts: VerifyArtifactOptions, dir: string, log: (t: string) => void): Promise<AttemptResult> {
  const res = emptyResult(requiredTests(opts.task));
  try {
    // A repository naming no registered runner is the dataset's fault, before the artifact is read.
    const kept = readArtifact(opts, testRunnerOf(opts.dataset, opts.task), res, log);
    if (kept === null) return res;
    const bed = await setUpBed(opts, dir, res, log);
    if (!(await applyArtifact(opts, bed, kept, dir, res, log))) return res;
    if (kept.some((b) => b.binary)) {
      // Binary blocks are scanned by what git wrote (their text is not in the patch).
      const written = await writtenLines(bed.tree, kept);
      const reference = opts.task.stagePatches.flatMap((p) => splitPatch(p));
      res.suspicious = [...new Set([...res.suspicious, ...scanned(() => suspiciousReasons(kept, reference, written))])];
    }
    const unplaced = placeHeldOut(bed.tree, bed.heldOut);
    if (unplaced) {
      res.applied = false;
      res.applyMethod = null;
      res.applyError = unplaced;
      return res;
    }
    reattachGitDir(bed.tree);
    await runAndJudge(opts, bed, dir, res, log);
    return res;
  } catch (e) {
    res.infra = e instanceof InfraFault ? e : new InfraFault(`verifier error: ${(e as Error).message}`, true);
    log(`infrastructure fault: ${res.infra.message}\n`);
    return res;
  }
}

/** Runs the required tests on base + tests.patch; returns null when that run is trustworthy, else why not. */
async function controlRun(opts: VerifyArtifactOptions, dir: string, bed: TestBed, log: (t: string) => void): Promise<string | null> {
  const checkout = join(dir, "checkout");
  await freshCheckout(opts.dataset, opts.task, checkout);
  const err = await applyHeldOutTests(opts.task, checkout, dir);
  if (err) return `tests.patch does not apply: ${err}`;
  const inifile = bed.inifile === null ? null : join(checkout, relative(bed.checkout, bed.inifile));
  const { run, distrust } = await plantedRun(
    opts,
    { ...bed, checkout, inifile },
    dir,
    opts.task.verifier.fail_to_pass,
    opts.task.verifier.pass_to_pass,
    log,
  );
  log(`control run (base + tests.patch, no artifact):\n${describeRun(run)}`);
  if (run.timedOut) return "the control run timed out";
  return distrust;
}

function count(ids: readonly string[], tests: Record<string, TestStatus>): { passed: number; total: number } {
  const uniq = [...new Set(ids)];
  return { passed: uniq.filter((id) => tests[id] === "passed").length, total: uniq.length };
}

type VerdictBase = Pick<Verdict, "format" | "session" | "task" | "artifact_sha256" | "log">;

/** Attempts until one is not a transient infrastructure fault (at most 1 + maxInfraRetries). */
async function runAttempts(opts: VerifyArtifactOptions, log: (t: string) => void): Promise<{ result: AttemptResult; attempts: number }> {
  const maxRetries = opts.maxInfraRetries ?? 2;
  let result: AttemptResult | null = null;
  let attempts = 0;
  while (attempts <= maxRetries) {
    attempts++;
    log(`\n=== attempt ${attempts} ===\n`);
    const dir = join(opts.workRoot, `attempt-${attempts}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    try {
      result = await attempt(opts, dir, log);
    } finally {
      if (!opts.keepWork) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    }
    if (!result.infra || !result.infra.transient) break;
  }
  return { result: result!, attempts };
}

function toVerdict(opts: VerifyArtifactOptions, base: VerdictBase, r: AttemptResult, attempts: number, started: number): Verdict {
  const required = requiredTests(opts.task);
  const allPassed = required.length > 0 && required.every((id) => r.tests[id] === "passed");
  const notes = [...r.notes];
  if (required.length === 0) notes.push("the task declares no required tests: nothing can resolve it");
  return verdictSchema.parse({
    ...base,
    applied: r.applied,
    apply_method: r.applyMethod,
    ...(r.applyError !== undefined ? { apply_error: r.applyError } : {}),
    dropped_files: r.dropped,
    tests: r.tests,
    fail_to_pass: count(opts.task.verifier.fail_to_pass, r.tests),
    pass_to_pass: count(opts.task.verifier.pass_to_pass, r.tests),
    resolved: r.applied && r.infra === null && !r.timedOut && allPassed,
    infra_fault: r.infra !== null,
    ...(r.infra ? { infra_reason: r.infra.message } : {}),
    timed_out: r.timedOut,
    exit_code: r.exitCode,
    result_source: r.resultSource,
    setup_cached: r.setupCached,
    duration_ms: Date.now() - started,
    attempts,
    verified_at: new Date().toISOString(),
    ...(notes.length > 0 ? { notes } : {}),
    ...(r.suspicious.length > 0 ? { suspicious: true, suspicious_reasons: r.suspicious } : {}),
    ...(r.canaries ? { canaries: r.canaries } : {}),
  });
}

/**
 * Verifies one frozen artifact against its task's held-out tests in a fresh checkout: non-test,
 * non-runner changes only, path-checked, applied with fallbacks; tests.patch applied; tests run by
 * our pytest launcher in the cached environment with a scrubbed env and a deadline; results read
 * from a JUnit report cross-checked with the runner's own channel. Infrastructure faults are
 * re-verified up to twice.
 */
export async function verifyArtifact(opts: VerifyArtifactOptions): Promise<Verdict> {
  const started = Date.now();
  const session = opts.session ?? opts.task.id;
  const logFile = opts.logFile ?? join(opts.workRoot, "verify.log");
  mkdirSync(opts.workRoot, { recursive: true });
  mkdirSync(dirname(logFile), { recursive: true });
  writeFileSync(logFile, `verification of ${session} (task ${opts.task.id}) at ${new Date().toISOString()}\n`);
  const log = (t: string) => appendFileSync(logFile, t);
  const base: VerdictBase = {
    format: "switch-swe.verdict/1",
    session,
    task: opts.task.id,
    artifact_sha256:
      opts.artifactSha256 !== undefined ? opts.artifactSha256 : opts.artifactText === null ? null : sha256(opts.artifactText),
    log: opts.logLabel ?? logFile,
  };
  if (opts.artifactText === null) {
    log(`${noArtifactError}\n`);
    return unappliedVerdict(opts.task, base, noArtifactError, Date.now() - started);
  }
  const { result, attempts } = await runAttempts(opts, log);
  const verdict = toVerdict(opts, base, result, attempts, started);
  const fault = verdict.infra_fault ? ` (infrastructure fault: ${verdict.infra_reason})` : "";
  log(`\nverdict: ${verdict.resolved ? "resolved" : "unresolved"}${fault}${verdict.suspicious ? " (suspicious)" : ""}\n`);
  return verdict;
}
