import { extname, resolve } from "node:path";
import { Option, type Command } from "commander";
import { parseCount, parsePositive } from "../options.js";
import { writeFileAtomic } from "../../core/json-file.js";
import { inputError } from "../../core/errors.js";
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
  catalogue?: boolean;
  native?: string;
  rcm?: string[];
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
    .addOption(new Option("--format <format>", "output format (default: from --out's extension, else table)").choices(reportFormats))
    .option("--out <file>", "write to FILE (atomically) instead of stdout")
    .option("--seed <n>", "bootstrap seed", parseCount("--seed"), DEFAULT_SEED)
    .option("--resamples <n>", "bootstrap resamples", parsePositive("--resamples"), DEFAULT_RESAMPLES)
    .option("--sessions <file>", "sessions file to use instead of the one named in run.json")
    .option("--dataset <dir>", "dataset to use instead of the one named in run.json (for stage attribution)")
    .option("--allow-mixed", "report runs whose sessions files or datasets differ by digest (default: refused, exit 2)")
    .option("--catalogue", "table and markdown: add the task catalogue, one row per focus task (json and html always carry it)")
    .option("--trust-suspicious", "count resolved verdicts marked suspicious as resolved (default: counted apart, unresolved)")
    .option(
      "--handoff <scores.json>",
      "cite a run's handoff score: handoff score --format json of handoff from-run RUN_DIR (repeatable; refused when built from another run)",
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    );
}

async function emit(runDirs: string[], o: ReportCliOptions, compare: boolean, rcmTable = false): Promise<void> {
  const format = o.format ?? (o.out ? formatByExtension[extname(o.out).toLowerCase()] : undefined) ?? "table";
  const report = await buildReport(runDirs, {
    compare,
    rcmTable,
    seed: o.seed,
    resamples: o.resamples,
    sessionsPath: o.sessions,
    datasetPath: o.dataset,
    trustSuspicious: o.trustSuspicious === true,
    allowMixed: o.allowMixed === true,
    ...(o.handoff ? { handoff: o.handoff } : {}),
  });
  const text = renderReport(report, format, { outFile: o.out ? resolve(o.out) : undefined, catalogue: o.catalogue === true });
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
      .description(
        "two configurations side by side, with the difference of their gaps and a paired bootstrap CI; or, with --native and --rcm, the paper's Table 3 (base / switch / +RCM with CIs, and the gaps)",
      )
      .argument("[run-dirs...]", "configuration A (e.g. the native agent) and configuration B (e.g. the agent with RCM)")
      .option("--native <run-dir>", "Table 3: the native run (base and switch columns)")
      .option(
        "--rcm <run-dir>",
        "Table 3: an RCM run of the same sessions (+RCM column; repeatable)",
        (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
      ),
  ).action(async (runDirs: string[], o: ReportCliOptions) => {
    if (o.native !== undefined || o.rcm !== undefined) {
      if (runDirs.length > 0) throw inputError("compare", "", "give either two run directories or --native and --rcm, not both");
      if (o.native === undefined) throw inputError("compare", "--native", "required with --rcm: the native run");
      if (o.rcm === undefined) throw inputError("compare", "--rcm", "required with --native: at least one RCM run");
      return emit([o.native, ...o.rcm], o, false, true);
    }
    if (runDirs.length !== 2)
      throw inputError("compare", "", `needs exactly two run directories (or --native and --rcm), got ${runDirs.length}`);
    return emit(runDirs, o, true);
  });
}
