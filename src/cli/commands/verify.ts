import { Option, type Command } from "commander";
import { confineBackend, confineModes } from "../../confine/registry.js";
import { defaultLimits, defaultLimitsText, parseLimits } from "../../confine/limits.js";
import { toJsonText } from "../../core/json-file.js";
import { cacheInfo, clearCache } from "../../testbed/cache-admin.js";
import { recordedVerifier, verifyRun } from "../../verify/run-verify.js";
import { defaultMaxArtifactMb } from "../../verify/artifact-file.js";
import type { ScratchDir } from "../../testbed/verifier-scratch.js";
import type { Verdict } from "../../formats/verdict.js";
import { ExitCode, verificationExitCode } from "../exit-codes.js";
import { collect, parsePositive as positiveInt } from "../options.js";
import { securedQueueTarget } from "./queue.js";

/** One line per verdict: outcome, counts, how the artifact applied, and why when it failed. */
export function verdictLine(v: Verdict, reused = false): string {
  const outcome = v.infra_fault ? "INFRA" : v.resolved ? "resolved" : "unresolved";
  const parts = [
    v.session.padEnd(28),
    outcome.padEnd(10),
    `F2P ${v.fail_to_pass.passed}/${v.fail_to_pass.total}`,
    `P2P ${v.pass_to_pass.passed}/${v.pass_to_pass.total}`,
  ];
  const why: string[] = [];
  if (!v.applied) why.push(`not applied: ${(v.apply_error ?? "").split("\n")[0]}`);
  else why.push(`${v.apply_method}`);
  if (v.dropped_files.length > 0) why.push(`dropped ${v.dropped_files.length} test or runner file(s)`);
  if (v.suspicious) why.push(`SUSPICIOUS: ${(v.suspicious_reasons ?? []).join("; ")}`);
  if (v.timed_out) why.push("timed out");
  if (v.infra_fault) why.push(`${v.infra_reason} (after ${v.attempts} attempt(s))`);
  why.push(reused ? "kept" : `${(v.duration_ms / 1000).toFixed(1)} s${v.setup_cached ? ", env cached" : ""}`);
  return `${parts.join("  ")}  ${why.join("; ")}`;
}

/** `verify RUN_DIR` and the environment cache commands `cache info` / `cache clear`. */
/** The last line of a verify: verdicts by outcome, then what was verified now and what was kept. */
function summaryLine(all: Verdict[], infra: number, result: { verified: string[]; reused: string[]; forged: string[] }): string {
  const resolved = all.filter((v) => v.resolved).length;
  const suspicious = all.filter((v) => v.suspicious).length;
  return (
    `${all.length} session(s): ${resolved} resolved${suspicious > 0 ? ` (${suspicious} suspicious)` : ""}, ${all.length - resolved - infra} unresolved, ${infra} infrastructure fault(s); ` +
    `${result.verified.length} verified, ${result.reused.length} kept${result.forged.length > 0 ? `, ${result.forged.length} with a bad seal verified again` : ""}\n`
  );
}

export function registerVerify(program: Command): void {
  program
    .command("verify")
    .description("verify every session's artifact of a run against its task's held-out tests; writes sessions/<id>/verdict.json")
    .argument("<run-dir>", "run directory")
    .option("--concurrency <n>", "verifications at once", positiveInt("--concurrency"), 2)
    .option("--session <id>", "verify only this session (repeatable)", collect)
    .option("--force", "verify again even when a verdict for the same artifact exists")
    .option(
      "--max-artifact-mb <n>",
      "artifacts larger than this are not read: not applied, with the reason",
      positiveInt("--max-artifact-mb"),
      defaultMaxArtifactMb,
    )
    .option("--json", "print the verdicts as JSON instead of one line each")
    .addOption(
      new Option(
        "--sandbox <mode>",
        `confine each test run: ${confineModes().join(" or ")} (default: as run.json records the run, else ${confineModes()[0]}; see docs/verification.md)`,
      ).choices(confineModes()),
    )
    .option(
      "--limits <spec>",
      `resource limits of each test run through cgroups: cpus=N,memory=SIZE,pids=N or none (default: as run.json records the run, else ${defaultLimitsText}; see docs/verification.md)`,
    )
    .option("--queue [url]", "verify on the `switch-swe worker`s of this Redis queue (URL, or $SWITCH_SWE_QUEUE)")
    .action(verifyFromFlags);
  registerCache(program);
}

interface VerifyFlags {
  concurrency: number;
  session?: string[];
  force?: boolean;
  json?: boolean;
  queue?: string | boolean;
  maxArtifactMb: number;
  sandbox?: string;
  limits?: string;
}

/** The `verify` command's action: verify locally or on the queue, print, set the exit code. */
async function verifyFromFlags(runDir: string, o: VerifyFlags): Promise<void> {
  // Unless told otherwise, as the run ran (--sandbox none, the demo without bubblewrap; its --limits).
  const recorded = recordedVerifier(runDir);
  const limits =
    o.limits !== undefined
      ? parseLimits(o.limits)
      : recorded.limits !== null
        ? parseLimits(recorded.limits, `${runDir}/run.json: limits.requested`)
        : defaultLimits;
  const confine = o.sandbox !== undefined ? confineBackend(o.sandbox) : recorded.testRuns;
  // Counted, so a log (CI, tee) shows how far verification is.
  const onProgress = (e: { verdict: Verdict; reused: boolean; done: number; total: number }) => {
    if (!o.json) process.stdout.write(`verified ${e.done}/${e.total}  ${verdictLine(e.verdict, e.reused)}\n`);
  };
  const common = { ...(o.session ? { sessions: o.session } : {}), ...(o.force ? { force: true } : {}) };
  let lost: string[] = [];
  let result: { verdicts: Record<string, Verdict>; verified: string[]; reused: string[]; forged: string[] };
  if (o.queue !== undefined) {
    const target = securedQueueTarget(o.queue);
    const { verifyRunOnQueue } = await import("../../queue/verify-run.js");
    const r = await verifyRunOnQueue(runDir, { target, maxArtifactMb: o.maxArtifactMb, confine, limits, ...common, onVerdict: onProgress });
    lost = r.lost;
    for (const u of r.unauthenticated) process.stderr.write(`${u}: refused, verified again\n`);
    result = r;
  } else {
    const local = { concurrency: o.concurrency, maxArtifactMb: o.maxArtifactMb, confine, limits };
    result = await verifyRun(runDir, { ...local, ...common, onNotice: (m) => process.stderr.write(`verify: ${m}\n`), onProgress });
  }
  for (const s of lost) process.stderr.write(`${s}: not verified: its verification job failed three times (workers died?)\n`);
  const all = Object.values(result.verdicts);
  const infra = all.filter((v) => v.infra_fault).length;
  if (o.json) {
    process.stdout.write(toJsonText(result));
  } else {
    process.stdout.write(summaryLine(all, infra, result));
  }
  // A verdict that says nothing about the model, or none at all, is a check that did not succeed.
  process.exitCode = lost.length > 0 ? ExitCode.checkFailed : verificationExitCode(infra);
}

/** `cache info` and `cache clear`: registered with verify, whose environments they hold. */
function registerCache(program: Command): void {
  const cache = program
    .command("cache")
    .description("the cache of repositories and test environments (SWITCH_SWE_CACHE, default ~/.cache/switch-swe)");
  cache
    .command("info")
    .description("list cached repositories and environments")
    .option("--json", "print as JSON")
    .action((o: { json?: boolean }) => {
      const info = cacheInfo();
      if (o.json) {
        process.stdout.write(toJsonText(info));
        return;
      }
      const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
      process.stdout.write(
        `cache: ${info.root}\nrepositories: ${info.repos.count} (${mb(info.repos.bytes)})\nenvironments: ${info.envs.length}\n`,
      );
      printScratch(info.scratch, mb);
      for (const e of info.envs) {
        const state = e.ready ? "ready" : e.locked ? "setting up" : "incomplete";
        process.stdout.write(
          `  ${e.key}  ${state.padEnd(10)}  ${mb(e.bytes).padStart(9)}  ${e.repo ?? "?"} @ ${(e.commit ?? "?").slice(0, 12)}` +
            `${e.setup_ms !== undefined ? `  set-up ${(e.setup_ms / 1000).toFixed(1)} s` : ""}\n`,
        );
      }
    });
  cache
    .command("clear")
    .description("remove cached environments and/or repositories (default: both)")
    .option("--envs", "remove the test environments")
    .option("--repos", "remove the cached repositories")
    .option("--all", "remove both (the default)")
    .action((o: { envs?: boolean; repos?: boolean; all?: boolean }) => {
      const all = o.all || (!o.envs && !o.repos);
      const r = clearCache({ envs: all || !!o.envs, repos: all || !!o.repos });
      for (const p of r.removed) process.stdout.write(`removed ${p}\n`);
      for (const p of r.skipped) process.stdout.write(`kept ${p} (a set-up holds its lock)\n`);
      if (r.removed.length === 0 && r.skipped.length === 0) process.stdout.write("nothing to remove\n");
    });
}

/** The verifier's scratch directories: in use by a running verifier, or left by one that died. */
function printScratch(scratch: readonly ScratchDir[], mb: (b: number) => string): void {
  const total = scratch.reduce((n, s) => n + s.bytes, 0);
  const stale = scratch.filter((s) => !s.inUse).length;
  process.stdout.write(
    `verifier scratch: ${scratch.length} (${mb(total)})${stale > 0 ? `, ${stale} left by a verifier that died (removed by the next verify or run --resume)` : ""}\n`,
  );
  for (const s of scratch) {
    process.stdout.write(
      `  ${s.dir}  ${(s.inUse ? "in use" : "stale").padEnd(6)}  ${mb(s.bytes).padStart(9)}${s.pid !== null ? `  pid ${s.pid}` : ""}\n`,
    );
  }
}
