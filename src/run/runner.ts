import { join } from "node:path";
import { writeJsonAtomic } from "../core/json-file.js";
import { killStaleGroup } from "../agents/command.js";
import { runFiles } from "../formats/run-layout.js";
import { Ledger } from "./ledger.js";
import { nowIso } from "./progress-events.js";
import { mapPool } from "../core/pool.js";
import { claimRunDir } from "./run-dir-claim.js";
import { DiskFullStop, isDiskFull } from "../core/disk-full.js";
import type { RunConfig } from "../formats/run-config.js";
import { verifyAfterRun } from "./verify-hook.js";
import { reapNotices, reapStaleScratch } from "../testbed/verifier-scratch.js";
import { hardeningWarning } from "../confine/record.js";
import { reapOrphanWorkDirs, removeWorkDir } from "./workspaces.js";
import type { BackendRun, RunOutcome } from "./session-backend.js";
import type { RunOptions } from "./run-options.js";
import { prepareRun, type Prepared } from "./prepare-run.js";
import { runWithRetries } from "./session-retries.js";

/** Attempts an earlier invocation left running: ended (their process groups too) and their workspaces removed. */
async function settleCutOffAttempts(ledger: Ledger, progress: RunOptions["progress"]): Promise<void> {
  for (const cut of ledger.markInterrupted("cut off: the run process ended while this attempt ran")) {
    const group = killStaleGroup(join(cut.work_dir, "agent", "pid"));
    if (group !== null)
      progress({
        type: "warning",
        time: nowIso(),
        session: cut.session,
        message: `ended the agent process group ${group} left running by the cut-off attempt ${cut.attempt}`,
      });
    await removeWorkDir(cut.work_dir);
  }
}

/** Said when a run starts: work directories of vanished runs removed; a sandbox weaker than it should be (in one line). */
async function startWarnings(config: RunConfig, progress: RunOptions["progress"]): Promise<void> {
  const orphans = await reapOrphanWorkDirs();
  if (orphans.length > 0)
    progress({
      type: "warning",
      time: nowIso(),
      message: `removed ${orphans.length} work director${orphans.length === 1 ? "y" : "ies"} under the cache whose run directory no longer links to them: ${orphans.join(", ")}`,
    });
  const weak = hardeningWarning(config.sandbox);
  if (weak) progress({ type: "warning", time: nowIso(), message: weak });
}

/**
 * `switch-swe run`: validates the inputs, writes run.json, then runs every selected session that the
 * ledger does not record as finished, restarting sessions that were cut off, with at most
 * `concurrency` sessions at a time. Sessions hit by infrastructure faults are retried (twice).
 */
export async function runSessions(opts: RunOptions): Promise<RunOutcome> {
  const { claim, prep, ledger } = await startRun(opts);
  const { runDir, config } = prep;
  const started = Date.now();
  const signal = opts.signal ?? new AbortController().signal;
  const outcome: RunOutcome = { runDir, finished: [], failed: [], skipped: [], interrupted: false, infraFaults: [] };
  // Verification is confined whatever the agent could be (an unsandboxed agent's artifact is no safer):
  // run.json's record says how; a resumed run is verified as it ran (a --sandbox none run without the flag, too).
  const { confinement } = prep;
  const { backend } = opts,
    backendRun: BackendRun = {
      runDir,
      config,
      dataset: prep.dataset,
      ledger,
      progress: opts.progress,
      signal,
      concurrency: opts.concurrency,
      confinement,
    };
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
    else await runHere(todo, { prep, ledger, opts, signal, diskFull }, outcome);
    outcome.interrupted = signal.aborted;

    // The single call site of verification (see verify-hook.ts).
    if (opts.verify && !outcome.interrupted && !diskFull.stopped) {
      outcome.infraFaults = backend
        ? await backend.verify(backendRun, config.sessions_selected)
        : await verifyAfterRun(
            runDir,
            config.sessions_selected,
            opts.concurrency,
            opts.progress,
            confinement.testRuns,
            confinement.testRunLimits,
          );
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
    endLedger(
      ledger,
      signal.aborted ? "interrupted" : diskFull.stopped ? "disk full" : outcome.failed.length > 0 ? "some sessions failed" : "ok",
    );
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

/** Claims the run directory, prepares the run, writes run.json of a new run and opens its ledger. */
async function startRun(opts: RunOptions): Promise<{ claim: ReturnType<typeof claimRunDir>; prep: Prepared; ledger: Ledger }> {
  // The lock first: a second `run` on the same directory fails here, having read and written nothing.
  const claim = claimRunDir(opts.out);
  let prep: Prepared | undefined;
  try {
    prep = prepareRun(claim.runDir, opts);
    // The harness is asked once, when the run starts (a resumed run keeps what run.json says).
    if (!prep.existing && prep.agent.describe) prep.config.agent.harness = await prep.agent.describe();
    if (!prep.existing) writeJsonAtomic(runFiles.config(claim.runDir), prep.config);
    return { claim, prep, ledger: Ledger.open(runFiles.ledger(claim.runDir)) };
  } catch (e) {
    // A new run that could not start leaves nothing behind; an existing one is left as it was.
    claim.abandon(prep !== undefined && !prep.existing);
    throw e;
  }
}

/** The sessions run in this process, `concurrency` at a time. */
async function runHere(
  todo: Prepared["selected"],
  c: { prep: Prepared; ledger: Ledger; opts: RunOptions; signal: AbortSignal; diskFull: DiskFullStop },
  outcome: RunOutcome,
): Promise<void> {
  await mapPool(todo, c.opts.concurrency, async (s) => {
    // A full disk stops the run from taking new sessions: each would fail the same way.
    if (c.signal.aborted || c.diskFull.stopped) return;
    try {
      const status = await runWithRetries(s, c.prep, c.ledger, c.opts, c.signal);
      if (status === "finished") outcome.finished.push(s.session);
      else if (status === "failed") outcome.failed.push(s.session);
    } catch (e) {
      if (!c.diskFull.record(s.session, e)) throw e;
    }
  });
}
