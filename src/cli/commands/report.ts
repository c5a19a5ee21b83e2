import { extname, resolve } from "node:path";
import { Option, type Command } from "commander";
import { parseCount, parsePositive } from "../options.js";
import { writeFileAtomic } from "../../core/json-file.js";
import { buildReport, renderReport, reportFormats, type ReportFormat } from "../../report/index.js";
import { DEFAULT_RESAMPLES, DEFAULT_SEED } from "../../report/stats.js";

interface ReportCliOptions {
  format?: ReportFormat;
  out?: string;
  seed: number;
  resamples: number;
  sessions?: string;
  dataset?: string;
  trustSuspicious?: boolean;
  allowMixed?: boolean;
  handoff?: string[];
}

const formatByExtension: Record<string, ReportFormat> = {
  ".html": "html",
  ".htm": "html",
  ".md": "markdown",
  ".json": "json",
  ".csv": "csv",
  ".txt": "table",
};

function addCommonOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option("--format <format>", "output format (default: from --out's extension, else table)").choices(reportFormats),
    )
    .option("--out <file>", "write to FILE (atomically) instead of stdout")
    .option("--seed <n>", "bootstrap seed", parseCount("--seed"), DEFAULT_SEED)
    .option("--resamples <n>", "bootstrap resamples", parsePositive("--resamples"), DEFAULT_RESAMPLES)
    .option("--sessions <file>", "sessions file to use instead of the one named in run.json")
    .option("--dataset <dir>", "dataset to use instead of the one named in run.json (for stage attribution)")
    .option("--allow-mixed", "report runs whose sessions files or datasets differ by digest (default: refused, exit 2)")
    .option("--trust-suspicious", "count resolved verdicts marked suspicious as resolved (default: counted apart, unresolved)")
    .option(
      "--handoff <scores.json>",
      "cite a run's handoff score: handoff score --format json of handoff from-run RUN_DIR (repeatable; refused when built from another run)",
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    );
}

async function emit(runDirs: string[], o: ReportCliOptions, compare: boolean): Promise<void> {
  const format = o.format ?? (o.out ? formatByExtension[extname(o.out).toLowerCase()] : undefined) ?? "table";
  const report = await buildReport(runDirs, {
    compare,
    seed: o.seed,
    resamples: o.resamples,
    sessionsPath: o.sessions,
    datasetPath: o.dataset,
    trustSuspicious: o.trustSuspicious === true,
    allowMixed: o.allowMixed === true,
    ...(o.handoff ? { handoff: o.handoff } : {}),
  });
  const text = renderReport(report, format, { outFile: o.out ? resolve(o.out) : undefined });
  if (o.out) {
    writeFileAtomic(resolve(o.out), text);
    process.stderr.write(`report: wrote ${format} to ${o.out}\n`);
  } else {
    process.stdout.write(text);
  }
}

/** `report RUN_DIR...` and `compare RUN_DIR_A RUN_DIR_B`. */
export function registerReport(program: Command): void {
  addCommonOptions(
    program
      .command("report")
      .description("resolution, gap, statistics, workload, profile and errors of verified run directories (one configuration each)")
      .argument("<run-dirs...>", "run directories"),
  ).action(async (runDirs: string[], o: ReportCliOptions) => emit(runDirs, o, false));

  addCommonOptions(
    program
      .command("compare")
      .description("two configurations side by side, with the difference of their gaps and a paired bootstrap CI")
      .argument("<run-dir-a>", "configuration A (e.g. the native agent)")
      .argument("<run-dir-b>", "configuration B (e.g. the agent with RCM)"),
  ).action(async (a: string, b: string, o: ReportCliOptions) => emit([a, b], o, true));
}
