import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { InfraFault } from "../core/infra-fault.js";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import { applyExact, applyWithFallbacks, type ApplyMethod } from "../testbed/apply-patch.js";
import { dropTestFiles, restorePytestConfig } from "./artifact-filter.js";
import { envFingerprint, invalidateEnvironment, type PreparedEnv } from "../testbed/env-cache.js";
import { checkAppliedPaths, checkPatchPaths, checkSymlinkEscapes } from "./path-safety.js";
import { describeRun, environmentFor, freshCheckout, requiredTests, runTaskTests } from "../testbed/task-testbed.js";
import { splitPatch, writeBlocks } from "./split-patch.js";
import { requiredStatuses, untrustedRunReason } from "../testbed/test-run.js";
import { verdictSchema, type TestStatus, type Verdict } from "../formats/verdict.js";

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
}

async function attempt(opts: VerifyArtifactOptions, dir: string, log: (t: string) => void): Promise<AttemptResult> {
  const { dataset, task } = opts;
  const required = requiredTests(task);
  const res: AttemptResult = {
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
  };
  try {
    const repoSpec = dataset.manifest.repos[task.repo] ?? {};
    const blocks = splitPatch(opts.artifactText ?? "");
    if (opts.artifactText !== null && opts.artifactText.trim() !== "" && blocks.length === 0) {
      res.applyError = "the artifact is not a patch (no file headers)";
      return res;
    }
    const unsafe = checkPatchPaths(blocks);
    if (unsafe) {
      res.applyError = `refused: ${unsafe}`;
      return res;
    }
    const { kept, dropped } = dropTestFiles(blocks, repoSpec, task.testsPatch);
    res.dropped = dropped;
    if (dropped.length > 0) log(`dropped from the artifact (test files): ${dropped.join(", ")}\n`);

    const checkout = join(dir, "checkout");
    const co = await freshCheckout(dataset, task, checkout);
    log(`checkout of ${task.repo} at ${co.commit} in ${checkout}\n`);

    const escape = checkSymlinkEscapes(checkout, kept);
    if (escape) {
      res.applyError = `refused: ${escape}`;
      return res;
    }
    if (kept.length === 0) {
      res.applied = true;
      res.applyMethod = "empty";
    } else {
      const patchFile = join(dir, "artifact.kept.patch");
      writeBlocks(patchFile, kept);
      const applied = await applyWithFallbacks(checkout, patchFile, log);
      if (!applied.ok) {
        res.applyError = applied.error;
        return res;
      }
      const after = checkAppliedPaths(checkout, kept);
      if (after) {
        res.applyError = `refused: ${after}`;
        return res;
      }
      res.applied = true;
      res.applyMethod = applied.method as ApplyMethod;
      const restored = await restorePytestConfig(checkout, kept);
      if (restored.length > 0) {
        res.dropped = [...new Set([...res.dropped, ...restored])].sort();
        res.notes.push(`pytest configuration changes were undone (base version restored): ${restored.join(", ")}`);
        log(`restored the base version of ${restored.join(", ")} (the artifact changed its pytest section)\n`);
      }
    }

    if (task.testsPatch.trim() !== "") {
      const testsFile = join(dir, "tests.patch");
      writeFileSync(testsFile, task.testsPatch);
      const err = await applyExact(checkout, testsFile);
      if (err) throw new InfraFault(`the held-out tests.patch does not apply: ${err}`, false);
    }

    const env = await environmentFor(dataset, task, co, log, opts.setupTimeoutMs ?? 30 * 60_000);
    res.setupCached = env.cached;
    log(env.dir ? `environment ${env.dir} (${env.cached ? "cached" : "set up now"})\n` : "no set-up commands: no environment\n");

    const run = await runTaskTests(dataset, task, checkout, dir, env, required);
    log(describeRun(run));
    res.timedOut = run.timedOut;
    res.exitCode = run.exitCode;
    res.resultSource = run.source;
    res.tests = requiredStatuses(run, required);

    if (env.dir && env.fingerprint !== null && envFingerprint(env.dir) !== env.fingerprint) {
      invalidateEnvironment(env.dir);
      res.notes.push("the test run changed files of the cached environment; it will be rebuilt before its next use");
    }

    const distrust = untrustedRunReason(run);
    if (distrust) {
      // Is the crash the artifact's doing? The same tests without the artifact tell.
      log(`suspicious run: ${distrust}; running the tests without the artifact to attribute it\n`);
      const control = await controlRun(opts, join(dir, "control"), env, required, log);
      if (control === null) {
        res.notes.push(`${distrust}; without the artifact the tests run normally, so the artifact caused it`);
      } else {
        throw new InfraFault(`${distrust}; without the artifact too (${control})`, true);
      }
    } else if (run.exitCode === 0 && Object.values(res.tests).some((s) => s === "failed" || s === "error")) {
      res.notes.push("the test command exited 0 although the report has a required test failing; the report was trusted");
    }
    return res;
  } catch (e) {
    res.infra = e instanceof InfraFault ? e : new InfraFault(`verifier error: ${(e as Error).message}`, true);
    log(`infrastructure fault: ${res.infra.message}\n`);
    return res;
  }
}

/** Runs the required tests on base + tests.patch; returns null when that run is trustworthy, else why not. */
async function controlRun(
  opts: VerifyArtifactOptions,
  dir: string,
  env: PreparedEnv,
  required: readonly string[],
  log: (t: string) => void,
): Promise<string | null> {
  const checkout = join(dir, "checkout");
  await freshCheckout(opts.dataset, opts.task, checkout);
  if (opts.task.testsPatch.trim() !== "") {
    const testsFile = join(dir, "tests.patch");
    writeFileSync(testsFile, opts.task.testsPatch);
    const err = await applyExact(checkout, testsFile);
    if (err) return `tests.patch does not apply: ${err}`;
  }
  const run = await runTaskTests(opts.dataset, opts.task, checkout, dir, env, required);
  log(`control run (base + tests.patch, no artifact):\n${describeRun(run)}`);
  if (run.timedOut) return "the control run timed out";
  return untrustedRunReason(run);
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function count(ids: readonly string[], tests: Record<string, TestStatus>): { passed: number; total: number } {
  const uniq = [...new Set(ids)];
  return { passed: uniq.filter((id) => tests[id] === "passed").length, total: uniq.length };
}

/**
 * Verifies one frozen artifact against its task's held-out tests in a fresh checkout: non-test
 * changes only, path-checked, applied with fallbacks; tests.patch applied; tests run in the
 * cached environment with a scrubbed env and a deadline; results read from a JUnit report
 * written outside the checkout. Infrastructure faults are re-verified up to twice.
 */
export async function verifyArtifact(opts: VerifyArtifactOptions): Promise<Verdict> {
  const started = Date.now();
  const session = opts.session ?? opts.task.id;
  const logFile = opts.logFile ?? join(opts.workRoot, "verify.log");
  mkdirSync(opts.workRoot, { recursive: true });
  mkdirSync(dirname(logFile), { recursive: true });
  writeFileSync(logFile, `verification of ${session} (task ${opts.task.id}) at ${new Date().toISOString()}\n`);
  const log = (t: string) => appendFileSync(logFile, t);
  const required = requiredTests(opts.task);

  const base = {
    format: "switch-swe.verdict/1" as const,
    session,
    task: opts.task.id,
    artifact_sha256: opts.artifactSha256 !== undefined ? opts.artifactSha256 : opts.artifactText === null ? null : sha256(opts.artifactText),
    log: opts.logLabel ?? logFile,
  };

  if (opts.artifactText === null) {
    log(`${noArtifactError}\n`);
    const tests = Object.fromEntries(required.map((id) => [id, "missing" as TestStatus]));
    return verdictSchema.parse({
      ...base,
      applied: false,
      apply_method: null,
      apply_error: noArtifactError,
      dropped_files: [],
      tests,
      fail_to_pass: count(opts.task.verifier.fail_to_pass, tests),
      pass_to_pass: count(opts.task.verifier.pass_to_pass, tests),
      resolved: false,
      infra_fault: false,
      timed_out: false,
      exit_code: null,
      result_source: "none",
      setup_cached: false,
      duration_ms: Date.now() - started,
      attempts: 1,
      verified_at: new Date().toISOString(),
    });
  }

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
  const r = result!;
  const allPassed = required.length > 0 && required.every((id) => r.tests[id] === "passed");
  const verdict: Verdict = {
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
    ...(r.notes.length > 0 ? { notes: r.notes } : {}),
  };
  if (required.length === 0) verdict.notes = [...(verdict.notes ?? []), "the task declares no required tests: nothing can resolve it"];
  log(`\nverdict: ${verdict.resolved ? "resolved" : "unresolved"}${verdict.infra_fault ? ` (infrastructure fault: ${verdict.infra_reason})` : ""}\n`);
  return verdictSchema.parse(verdict);
}
