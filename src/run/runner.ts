import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { firstProblems, inputError } from "../core/errors.js";
import { parseJsonWith, readJsonWith, writeJsonAtomic } from "../core/json-file.js";
import { loadDataset, type Dataset } from "../dataset/load.js";
import { sessionsFileSchema } from "../formats/sessions.js";
import { agentCapabilities, createAgent } from "../agents/registry.js";
import { killStaleGroup } from "../agents/command.js";
import type { Agent } from "../agents/types.js";
import type { RcmMode } from "../rcm/history.js";
import { rcmProxiedAgent } from "./rcm-proxy-agent.js";
import type { RcmStateKind } from "../rcm/proxy/server.js";
import { AttemptAborted, runSessionAttempt, type AttemptSummary } from "./controller.js";
import { packageVersion } from "../core/package-paths.js";
import { runFiles } from "../formats/run-layout.js";
import { Ledger } from "./ledger.js";
import { nowIso, type ProgressSink } from "./progress-events.js";
import { mapPool } from "../core/pool.js";
import { claimRunDir, emptyButLock } from "./run-dir-claim.js";
import { DiskFullStop, firstLine, fullDiskBehind, isDiskFull } from "../core/disk-full.js";
import { defaultLabel, recordedPath, runConfigSchema, type RunConfig } from "../formats/run-config.js";
import { assertSameRun } from "./same-run.js";
import { taskEnvironmentRecord } from "./task-environments.js";
import { selectSessions, type ConditionChoice, type SelectedSession } from "./session-selection.js";
import type { SessionSummary } from "../formats/session-summary.js";
import { sessionsMismatch } from "./sessions-match.js";
import { attemptWorkDir } from "./session-dir.js";
import { verifyAfterRun } from "./verify-hook.js";
import { reapNotices, reapStaleScratch } from "../testbed/verifier-scratch.js";
import { hardeningWarning } from "../confine/record.js";
import type { NetworkMode } from "../confine/egress.js";
import { limitsRecord } from "../confine/limits-record.js";
import { defaultLimits, parseLimits, type Limits } from "../confine/limits.js";
import { confinementOf, sandboxRecord, type Confinement } from "../confine/confinement.js";
import { defaultConfineBackend } from "../confine/registry.js";
import { reapOrphanWorkDirs, removeWorkDir } from "./workspaces.js";
import { sha256 } from "../core/digest.js";
import { datasetDigest } from "../dataset/pack.js";
import type { SubmissionMode } from "./message-templates.js";
import type { BackendRun, RunOutcome, SessionBackend } from "./session-backend.js";

/** The harness's own agents are scored by their checkout (they were built so); real agents submit their patch, as in the paper (their capabilities say which). */
function defaultSubmission(agent: string): SubmissionMode {
  return agentCapabilities(agent).submission;
}

export const defaultRequestTimeoutS = 900;
export const maxContinuations = 3;
export const maxInfraRetries = 2;

/** Options of `switch-swe run`; undefined = not given (on --resume, taken from run.json). */
export interface RunOptions {
  out: string;
  resume: boolean;
  dataset?: string;
  sessions?: string;
  agent?: string;
  agentOptions?: Record<string, string>;
  condition?: ConditionChoice;
  sessionIds?: string[];
  seed?: number;
  label?: string;
  requestTimeoutS?: number;
  concurrency: number;
  keepWorkspaces: boolean;
  /** `--sandbox`: the backend (src/confine/registry.ts) that confines the agent's processes and the verifier's test runs (default: the registry's first, bwrap). */
  sandbox?: string;
  /** Why the run is unconfined, recorded in run.json with `sandbox: "none"` (the demo without bubblewrap). */
  unconfinedBecause?: string;
  /** `--submission`: the artifact is the agent's submitted patch or the focus checkout's diff (default: defaultSubmission). */
  submission?: SubmissionMode;
  /** The agent's network inside its sandbox: `model` (default: only the model endpoints its configuration names), `none`, or `on` (everything). */
  network?: NetworkMode;
  /** Resource limits of each session's processes (`--limits`; default the paper's 4 CPUs, 16 GiB, 1024 processes; on --resume: run.json's). */
  limits?: Limits;
  verify: boolean;
  progress: ProgressSink;
  /** Stops the run (the CLI wires Ctrl-C and SIGTERM to it). */
  signal?: AbortSignal;
  /** `--rcm`: an RCM proxy in front of the agent's model endpoint (on --resume: run.json's). */
  rcm?: RcmMode;
  /** `--rcm-state`: the proxy's state memory, model-written (default of `--rcm rcm`) or extractive (on --resume: run.json's). */
  rcmState?: RcmStateKind;
  /** Runs the sessions elsewhere (`--queue`: src/queue/coordinator.ts); default: in this process. */
  backend?: SessionBackend;
}

interface Prepared {
  runDir: string;
  config: RunConfig;
  dataset: Dataset;
  agent: Agent;
  selected: SelectedSession[];
  existing: boolean;
  /** Built once from run.json's records (a fresh run's from the flags). */
  confinement: Confinement;
}


/** Checks every input before anything is written (the caller holds the run directory's lock). */
function prepare(runDir: string, opts: RunOptions): Prepared {
  const configFile = runFiles.config(runDir);
  let previous: RunConfig | null = null;
  if (opts.resume) {
    if (!existsSync(configFile)) throw inputError(runDir, "", "no run.json here: nothing to resume (start the run without --resume)");
    previous = readJsonWith(configFile, runConfigSchema);
  } else if (!emptyButLock(runDir)) {
    throw inputError(runDir, "", "already exists and is not empty (add --resume to continue the run in it, or choose another --out)");
  }

  const datasetPath = opts.dataset ?? (previous ? recordedPath(runDir, previous.dataset.path) : undefined);
  const sessionsPath = opts.sessions ?? (previous ? recordedPath(runDir, previous.sessions_file.path) : undefined);
  const agentName = opts.agent ?? previous?.agent.name;
  if (datasetPath === undefined) throw inputError("--dataset", "", "required");
  if (sessionsPath === undefined) throw inputError("--sessions", "", "required");
  if (agentName === undefined) throw inputError("--agent", "", "required");
  const agentOptions = opts.agentOptions ?? previous?.agent.options ?? {};

  const rcm = opts.rcm ?? previous?.rcm?.mode;
  // Model-written state is the default of mode rcm (the agent's own upstream is the auxiliary model); a
  // resumed run keeps what it recorded (absent: a run from before model-written state, extractive).
  const rcmState = opts.rcmState ?? (previous?.rcm ? (previous.rcm.state ?? "extractive") : rcm === "rcm" ? "model" : "extractive");
  if (opts.rcmState !== undefined && rcm === undefined) throw inputError("--rcm-state", "", "only with --rcm (the proxy's state memory); OpenCode's plugin takes --agent-opt rcm_state=model");
  const agent = rcm ? rcmProxiedAgent(agentName, agentOptions, rcm, rcmState) : createAgent(agentName, agentOptions);
  const can = agentCapabilities(agentName);
  const dataset = loadDataset(datasetPath);
  // Read once: the hash in run.json is of the very bytes that were parsed.
  const sessionsText = (() => {
    try {
      return readFileSync(resolve(sessionsPath));
    } catch {
      throw inputError(resolve(sessionsPath), "", "file not found");
    }
  })();
  const sessions = parseJsonWith(resolve(sessionsPath), sessionsText.toString("utf8"), sessionsFileSchema);
  const problems = sessionsMismatch(sessions, resolve(sessionsPath), dataset);
  // Built for another dataset: every other line follows from that one, so it is said alone.
  if (problems[0]?.path === "dataset") throw firstProblems(problems, 1, "problems that follow from it (its pairs name tasks and texts of that dataset)");
  if (problems.length > 0) throw firstProblems(problems, 3);
  const condition = opts.condition ?? previous?.condition ?? "both";
  const filter = opts.sessionIds && opts.sessionIds.length > 0 ? [...opts.sessionIds] : opts.sessionIds ? null : (previous?.session_filter ?? null);
  const selected = selectSessions(sessions, condition, filter);
  if (selected.length === 0) throw inputError(resolve(sessionsPath), "pairs", "no session to run");
  const requestTimeoutS = opts.requestTimeoutS ?? previous?.request_timeout_s ?? defaultRequestTimeoutS;
  if (!(requestTimeoutS > 0)) throw inputError("--request-timeout", "", "must be a positive number of seconds");

  const config: RunConfig = {
    format: "switch-swe.run/1",
    created_at: previous?.created_at ?? nowIso(),
    switch_swe_version: previous?.switch_swe_version ?? packageVersion,
    // A resumed run keeps the digest it started with (run.json is written once).
    dataset: { path: dataset.root, name: dataset.manifest.name, version: dataset.manifest.version, sha256: previous ? previous.dataset.sha256 : datasetDigest(dataset.root) },
    sessions_file: { path: resolve(sessionsPath), sha256: sha256(sessionsText), seed: sessions.seed },
    // A resumed run keeps what the harness said when the run started (queue workers check their CLI against it).
    agent: { name: agentName, options: agentOptions, ...(previous?.agent.harness ? { harness: previous.agent.harness } : {}) },
    label: opts.label ?? previous?.label ?? `${defaultLabel({ name: agentName, options: agentOptions })}${rcm ? ` rcm-proxy=${rcm}` : ""}`,
    seed: opts.seed ?? previous?.seed ?? 0,
    condition,
    session_filter: filter,
    // A run started before the mode was recorded took the checkout: it is resumed so.
    submission: opts.submission ?? (previous ? (previous.submission ?? "checkout") : defaultSubmission(agentName)),
    sessions_selected: selected.map((s) => s.session),
    request_timeout_s: requestTimeoutS,
    max_continuations: previous?.max_continuations ?? maxContinuations,
    max_infra_retries: previous?.max_infra_retries ?? maxInfraRetries,
    sandbox: sandboxRecord(opts.sandbox ?? previous?.sandbox?.mode ?? defaultConfineBackend().mode, {
      network: opts.network ?? previous?.sandbox?.network ?? "model",
      agent: { name: agentName, confinable: can.confinable, cli: can.cli !== undefined, endpoints: agent.endpoints },
      unconfinedBecause: opts.unconfinedBecause,
    }, opts.sandbox === undefined && previous ? { file: configFile, path: "sandbox.mode" } : undefined),
    ...(rcm ? { rcm: { mode: rcm, state: rcmState } } : {}),
    limits: limitsRecord(opts.limits ?? (previous?.limits ? parseLimits(previous.limits.requested, `${configFile}: limits.requested`) : defaultLimits), { name: agentName, limits: can.limits }, opts.backend !== undefined),
  };
  const confinement = confinementOf(config, configFile);
  if (confinement.agent && !can.harnessSide) config.sandbox!.task_environment = taskEnvironmentRecord(dataset, selected);
  if (previous) assertSameRun(configFile, previous, config);
  return { runDir, config, dataset, agent, selected, existing: previous !== null, confinement };
}

/** Attempts an earlier invocation left running: ended (their process groups too) and their workspaces removed. */
async function settleCutOffAttempts(ledger: Ledger, progress: RunOptions["progress"]): Promise<void> {
  for (const cut of ledger.markInterrupted("cut off: the run process ended while this attempt ran")) {
    const group = killStaleGroup(join(cut.work_dir, "agent", "pid"));
    if (group !== null) progress({ type: "warning", time: nowIso(), session: cut.session, message: `ended the agent process group ${group} left running by the cut-off attempt ${cut.attempt}` });
    await removeWorkDir(cut.work_dir);
  }
}

/** Said when a run starts: work directories of vanished runs removed; a sandbox weaker than it should be (in one line). */
async function startWarnings(config: RunConfig, progress: RunOptions["progress"]): Promise<void> {
  const orphans = await reapOrphanWorkDirs();
  if (orphans.length > 0) progress({ type: "warning", time: nowIso(), message: `removed ${orphans.length} work director${orphans.length === 1 ? "y" : "ies"} under the cache whose run directory no longer links to them: ${orphans.join(", ")}` });
  const weak = hardeningWarning(config.sandbox);
  if (weak) progress({ type: "warning", time: nowIso(), message: weak });
}

/**
 * `switch-swe run`: validates the inputs, writes run.json, then runs every selected session that the
 * ledger does not record as finished, restarting sessions that were cut off, with at most
 * `concurrency` sessions at a time. Sessions hit by infrastructure faults are retried (twice).
 */
export async function runSessions(opts: RunOptions): Promise<RunOutcome> {
  // The lock first: a second `run` on the same directory fails here, having read and written nothing.
  const claim = claimRunDir(opts.out);
  let prep: Prepared | undefined;
  let ledger: Ledger;
  try {
    prep = prepare(claim.runDir, opts);
    // The harness is asked once, when the run starts (a resumed run keeps what run.json says).
    if (!prep.existing && prep.agent.describe) prep.config.agent.harness = await prep.agent.describe();
    if (!prep.existing) writeJsonAtomic(runFiles.config(claim.runDir), prep.config);
    ledger = Ledger.open(runFiles.ledger(claim.runDir));
  } catch (e) {
    // A new run that could not start leaves nothing behind; an existing one is left as it was.
    claim.abandon(prep !== undefined && !prep.existing);
    throw e;
  }
  const { runDir, config } = prep;
  const started = Date.now();
  const signal = opts.signal ?? new AbortController().signal;
  const outcome: RunOutcome = { runDir, finished: [], failed: [], skipped: [], interrupted: false, infraFaults: [] };
  // Verification is confined whatever the agent could be (an unsandboxed agent's artifact is no safer):
  // run.json's record says how; a resumed run is verified as it ran (a --sandbox none run without the flag, too).
  const { confinement } = prep;
  const { backend } = opts, backendRun: BackendRun = { runDir, config, dataset: prep.dataset, ledger, progress: opts.progress, signal, concurrency: opts.concurrency, confinement };
  const diskFull = new DiskFullStop();
  try {
    ledger.startInvocation(prep.existing);
    if (backend) await backend.recover(backendRun);
    else await settleCutOffAttempts(ledger, opts.progress);
    // A run killed while verifying left the verifier's test commands and scratch behind: end them.
    await startWarnings(config, opts.progress);
    if (prep.existing) for (const message of reapNotices(reapStaleScratch())) opts.progress({ type: "warning", time: nowIso(), message });
    const finished = ledger.finishedSessions();
    const todo = prep.selected.filter((s) => !finished.has(s.session));
    outcome.skipped = prep.selected.filter((s) => finished.has(s.session)).map((s) => s.session);
    opts.progress({
      type: "run_start",
      time: nowIso(),
      run_dir: runDir,
      sessions: prep.selected.length,
      skipped: outcome.skipped.length,
      requests: todo.reduce((n, s) => n + s.pair.schedules[s.condition].length, 0),
      concurrency: opts.concurrency,
    });

    if (backend) await backend.run(todo, backendRun, outcome);
    else
      await mapPool(todo, opts.concurrency, async (s) => {
        // A full disk stops the run from taking new sessions: each would fail the same way.
        if (signal.aborted || diskFull.stopped) return;
        try {
          const status = await runWithRetries(s, prep, ledger, opts, signal);
          if (status === "finished") outcome.finished.push(s.session);
          else if (status === "failed") outcome.failed.push(s.session);
        } catch (e) {
          if (!diskFull.record(s.session, e)) throw e;
        }
      });
    outcome.interrupted = signal.aborted;

    // The single call site of verification (see verify-hook.ts).
    if (opts.verify && !outcome.interrupted && !diskFull.stopped) {
      outcome.infraFaults = backend
        ? await backend.verify(backendRun, config.sessions_selected)
        : await verifyAfterRun(runDir, config.sessions_selected, opts.concurrency, opts.progress, confinement.testRuns, confinement.testRunLimits);
    }
  } finally {
    await backend?.close();
    opts.progress({
      type: "run_end",
      time: nowIso(),
      finished: outcome.finished.length,
      failed: outcome.failed.length,
      skipped: outcome.skipped.length,
      interrupted: signal.aborted,
      elapsed_ms: Date.now() - started,
    });
    endLedger(ledger, signal.aborted ? "interrupted" : diskFull.stopped ? "disk full" : outcome.failed.length > 0 ? "some sessions failed" : "ok");
    claim.release();
  }
  const stop = diskFull.error(
    (f) =>
      `${runDir}: the disk is full (${f.reason}); session ${f.item} stopped as an infrastructure fault and no new session was started ` +
      `(${outcome.finished.length} finished now, ${outcome.skipped.length} earlier; all kept). Free space, then continue with: switch-swe run --out ${runDir} --resume`,
  );
  if (stop) throw stop;
  return outcome;
}

/** Ends this invocation in the ledger; on a full disk that record is lost, and --resume copes without it. */
function endLedger(ledger: Ledger, result: string): void {
  try {
    ledger.endInvocation(result);
  } catch (e) {
    if (!isDiskFull(e)) throw e;
  } finally {
    ledger.close();
  }
}

async function runWithRetries(
  s: SelectedSession,
  prep: Prepared,
  ledger: Ledger,
  opts: RunOptions,
  signal: AbortSignal,
): Promise<"finished" | "failed" | "interrupted"> {
  const { runDir, config } = prep;
  let last: AttemptAborted | null = null;
  for (let tries = 0; tries <= config.max_infra_retries; tries++) {
    if (signal.aborted) return "interrupted";
    const workDirOf = (n: number) => attemptWorkDir(runDir, config.created_at, s.session, n);
    const attempt = ledger.begin(s.session, workDirOf);
    try {
      const summary = await runSessionAttempt({
        runDir,
        dataset: prep.dataset,
        pair: s.pair,
        condition: s.condition,
        session: s.session,
        attempt,
        workDir: workDirOf(attempt),
        agent: prep.agent,
        runSeed: config.seed,
        requestTimeoutMs: config.request_timeout_s * 1000,
        maxContinuations: config.max_continuations,
        keepWorkspaces: opts.keepWorkspaces,
        submission: config.submission ?? "checkout",
        sandbox: prep.confinement.agent,
        limits: prep.confinement.sessionLimits,
        signal,
        progress: opts.progress,
      });
      // session.json first, then the ledger: a crash in between restarts the session, never loses it.
      writeSummary(runDir, summary, ledger, { attempt, status: "finished", detail: null });
      ledger.end(s.session, attempt, "finished");
      opts.progress({ type: "session_end", time: nowIso(), session: s.session, attempt, status: "finished" });
      return "finished";
    } catch (e) {
      const full = signal.aborted ? null : fullDiskBehind(e, runDir);
      if (full) {
        // Not the agent's doing, and no retry helps until there is space: the run stops (see runSessions).
        endOnFullDisk(ledger, opts, s.session, attempt, full);
        throw full;
      }
      if (!(e instanceof AttemptAborted)) {
        // A harness error outside the attempt's own handling: this session fails, the others go on.
        const detail = e instanceof Error ? (e.stack ?? e.message) : String(e);
        ledger.end(s.session, attempt, "failed", detail);
        opts.progress({ type: "session_end", time: nowIso(), session: s.session, attempt, status: "failed", detail });
        return "failed";
      }
      last = e;
      ledger.end(s.session, attempt, e.kind, e.message);
      const retry = e.kind === "infra_fault" && tries < config.max_infra_retries && !signal.aborted;
      opts.progress({ type: "session_end", time: nowIso(), session: s.session, attempt, status: e.kind, retry, detail: e.message });
      if (e.kind === "interrupted") return "interrupted";
      if (!retry) break;
    }
  }
  if (last) writeSummary(runDir, last.partial, ledger, null);
  return "failed";
}

/** Records the attempt as an infrastructure fault where the ledger still can (else --resume marks it cut off). */
function endOnFullDisk(ledger: Ledger, opts: RunOptions, session: string, attempt: number, e: unknown): void {
  const detail = `the disk is full: ${firstLine(e)}`;
  try {
    ledger.end(session, attempt, "infra_fault", detail);
  } catch (again) {
    if (!isDiskFull(again)) throw again;
  }
  opts.progress({ type: "session_end", time: nowIso(), session, attempt, status: "infra_fault", retry: false, detail });
}

/** session.json of an attempt, with the ledger's list of attempts (`current` overrides its own row). */
export function writeSummary(
  runDir: string,
  summary: AttemptSummary,
  ledger: Ledger,
  current: { attempt: number; status: string; detail: string | null } | null,
): void {
  const attempts = ledger.attempts(summary.session).map((r) => ({ attempt: r.attempt, status: r.status as string, detail: r.detail }));
  if (current) {
    const i = attempts.findIndex((a) => a.attempt === current.attempt);
    if (i >= 0) attempts[i] = current;
  }
  const full: SessionSummary = { ...summary, attempts };
  writeJsonAtomic(runFiles.summary(runDir, summary.session), full);
}
