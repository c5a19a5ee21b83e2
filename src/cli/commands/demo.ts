import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { InputError, formatProblem } from "../../core/errors.js";
import { toJsonText, writeFileAtomic } from "../../core/json-file.js";
import { sampleDatasetDir } from "../../core/package-paths.js";
import { defaultConfineBackend } from "../../confine/registry.js";
import { noneBackend } from "../../confine/none.js";
import { runDoctorChecks } from "../../doctor/probes.js";
import { judge, needsOf } from "../../doctor/uses.js";
import { validateDataset } from "../../dataset/validate.js";
import type { Dataset } from "../../dataset/load.js";
import { buildReport, renderReport } from "../../report/index.js";
import { runFiles } from "../../formats/run-layout.js";
import { logReporter, reporterFor } from "../../run/progress-log.js";
import type { ProgressEvent } from "../../run/progress-events.js";
import { runSessions } from "../../run/runner.js";
import { buildCheckedSessions } from "../../sessions/checked-build.js";
import { fewStagesWarning, formatProfileTable, profileTable } from "../../sessions/stats.js";
import { ExitCode } from "../exit-codes.js";
import { parseCount, parsePositive } from "../options.js";

interface DemoOptions {
  out: string;
  seed: number;
  concurrency: number;
  forget: string;
  dataset?: string;
}

/** Only the milestones: a demo of 72 sessions should not print a line per request, but says how far it is. */
function milestones(): (e: ProgressEvent) => void {
  const r = process.stderr.isTTY
    ? reporterFor({ quiet: false, json: false }, process.stderr, process.stderr)
    : logReporter(process.stderr, { milestones: true, timestamps: false });
  return (e) => r.emit(e);
}

/**
 * The demo's agents are the harness's own (no agent code runs), so without bubblewrap they and their
 * verification run unconfined rather than not at all, said in one line first; `run` keeps refusing.
 */
function demoConfinement(): { sandbox?: string; unconfinedBecause?: string } {
  const missing = defaultConfineBackend().probe().problem;
  if (missing === null) return {};
  process.stdout.write(
    `confinement: none (${missing}): the demo's agents run no agent code, so they and the verification run unconfined; for confinement install bubblewrap (see switch-swe doctor)\n\n`,
  );
  return {
    sandbox: noneBackend.mode,
    unconfinedBecause: `${missing}: the demo's agents (the harness's own oracle and forgetting oracle) ran unconfined`,
  };
}

/** The tools the demo cannot run without (git, python3 with pytest), refused up front with the fix. */
async function requireDemoTools(): Promise<void> {
  const report = judge("demo", await runDoctorChecks(needsOf.demo));
  if (report.ready) return;
  throw new InputError(
    report.checks
      .filter((c) => !c.ok)
      .map((c) => ({
        file: "demo",
        path: c.id,
        message: `${c.detail}; install: ${c.install ?? "see switch-swe doctor"} (see switch-swe doctor)`,
      })),
  );
}

export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description(
      "the whole pipeline on a dataset (default: the embedded sample): validate it, build and validate its sessions, run them " +
        "with the oracle agent and with a forgetting oracle (a known resumption gap), verify every artifact and print the report",
    )
    .option("--out <dir>", "where the demo writes its files (re-running resumes)", "switch-swe-demo")
    .option(
      "--dataset <dir>",
      "run the pipeline on this dataset (for example one from `datasets materialize` or `tasks mine`) instead of the sample",
    )
    .option("--seed <n>", "seed of the sessions and of the forgetting oracle", parseCount("--seed"), 0)
    .option("--concurrency <n>", "sessions run in parallel", parsePositive("--concurrency"), 2)
    .option("--forget <p>", "probability that the forgetting oracle drops earlier stages on a return", "0.5")
    .action(async (o: DemoOptions) => {
      await requireDemoTools();
      const out = resolve(o.out);
      const datasetDir = o.dataset !== undefined ? resolve(o.dataset) : sampleDatasetDir;
      const { dataset, problems, warnings } = await validateDataset(datasetDir);
      for (const w of warnings) process.stderr.write(`warning: ${formatProblem(w)}\n`);
      if (!dataset || problems.length > 0) {
        for (const p of problems) process.stderr.write(`${formatProblem(p)}\n`);
        process.exitCode = ExitCode.checkFailed;
        return;
      }
      process.stdout.write(`dataset ${dataset.manifest.name}@${dataset.manifest.version}: ${dataset.tasks.length} tasks, valid\n`);
      const sessionsPath = writeDemoSessions(dataset, datasetDir, out, o.seed);

      const configs = [
        { name: "oracle", options: {} as Record<string, string>, label: "oracle" },
        { name: "oracle", options: { forget: o.forget }, label: `oracle forget=${o.forget}` },
      ];
      const confinement = demoConfinement();
      const runDirs: string[] = [];
      for (const c of configs) {
        const runDir = join(out, "runs", c.label.replace(/[^A-Za-z0-9.]+/g, "-"));
        const resume = existsSync(runFiles.config(runDir));
        const outcome = await runSessions({
          out: runDir,
          resume,
          dataset: datasetDir,
          sessions: sessionsPath,
          agent: c.name,
          agentOptions: c.options,
          seed: o.seed,
          label: c.label,
          concurrency: o.concurrency,
          keepWorkspaces: false,
          verify: true,
          progress: milestones(),
          ...confinement,
        });
        if (outcome.interrupted) {
          process.exitCode = ExitCode.checkFailed;
          return;
        }
        runDirs.push(runDir);
      }
      const report = await buildReport(runDirs, { compare: true });
      const htmlPath = join(out, "report.html");
      writeFileAtomic(htmlPath, renderReport(report, "html", { outFile: htmlPath }));
      writeFileAtomic(join(out, "report.json"), renderReport(report, "json"));
      process.stdout.write(`\n${renderReport(report, "table")}\n`);
      process.stdout.write(`\nreport: ${htmlPath} (also report.json); runs: ${runDirs.join(", ")}\n`);
    });
}

/** Builds and checks the sessions of the demo's dataset, writes them, prints their profile; the file's path. */
function writeDemoSessions(dataset: Dataset, datasetDir: string, out: string, seed: number): string {
  const file = buildCheckedSessions(dataset, { seed });
  if (file.pairs.length === 0) {
    // Five tasks are not enough when they share files (click's five do): say, per task, what is missing.
    throw new InputError([
      {
        file: datasetDir,
        path: "",
        message: `no session pair can be built (${file.excluded.length} focus task(s) excluded): a focus task needs 4 interruptions of its repository that share no source file with it, all near or all far`,
      },
      ...file.excluded.map((e) => ({ file: datasetDir, path: `tasks.${e.task}`, message: e.reason.replace(`${e.task}: `, "") })),
    ]);
  }
  const few = fewStagesWarning(file);
  if (few) process.stderr.write(`warning: ${few}\n`);
  const sessionsPath = join(out, "sessions.json");
  writeFileAtomic(sessionsPath, toJsonText(file));
  process.stdout.write(
    `sessions: ${sessionsPath} (${file.pairs.length} pairs, validated)\n\n${formatProfileTable(profileTable(file))}\n\n`,
  );
  return sessionsPath;
}
