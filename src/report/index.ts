import { inputError } from "../core/errors.js";
import { buildConfigReport } from "./aggregate.js";
import { assertComparable } from "./comparability.js";
import { compareConfigs } from "./compare.js";
import { rcmTable } from "./rcm-table.js";
import { assertRcmArms } from "./rcm-arms.js";
import { crossConfigSummary, figuresData } from "./cross-config.js";
import { citeHandoffScores } from "./handoff-citation.js";
import { readRun, type ReadRunOptions } from "./read-run.js";
import { REPORT_FORMAT, type Report } from "./report-schema.js";
import { renderCsv } from "./render-csv.js";
import { renderHtml } from "./render-html.js";
import { renderMarkdown } from "./render-markdown.js";
import { renderTable } from "./render-table.js";
import { shareableReport } from "./shareable.js";
import { DEFAULT_RESAMPLES, DEFAULT_SEED } from "./stats.js";

export { reportSchema, type Report } from "./report-schema.js";
export { readReportFile } from "./read-report.js";

export const reportFormats = ["table", "markdown", "json", "csv", "html"] as const;
export type ReportFormat = (typeof reportFormats)[number];

export interface BuildReportOptions extends Omit<ReadRunOptions, "sessionsPath" | "datasetPath"> {
  /** Bootstrap seed (default 0). */
  seed?: number;
  /** Bootstrap resamples (default 10,000). */
  resamples?: number;
  /** Exactly two run dirs: add the A-vs-B comparison (difference of gaps, paired bootstrap CI). */
  compare?: boolean;
  /** The paper's Table 3: the first run dir is the native run, the others RCM runs (at least one). */
  rcmTable?: boolean;
  /** Override run.json's sessions file (applies to every run dir). */
  sessionsPath?: string;
  /** Override run.json's dataset path (applies to every run dir). */
  datasetPath?: string;
  /** Count resolved verdicts marked suspicious as resolved. */
  trustSuspicious?: boolean;
  /** Report runs whose sessions files or datasets differ by digest (refused otherwise). */
  allowMixed?: boolean;
  /** `handoff score --format json` files to cite; each must come from one of the run directories. */
  handoff?: readonly string[];
}

/** Reads verified run directories (one configuration each) and computes the whole report. */
export async function buildReport(runDirs: readonly string[], opts: BuildReportOptions = {}): Promise<Report> {
  if (runDirs.length === 0) throw inputError("report", "", "give at least one run directory");
  if (opts.compare && runDirs.length !== 2) throw inputError("compare", "", `needs exactly two run directories, got ${runDirs.length}`);
  if (opts.rcmTable && runDirs.length < 2) throw inputError("compare", "--rcm", "give at least one RCM run besides the native one");
  const seed = opts.seed ?? DEFAULT_SEED;
  const resamples = opts.resamples ?? DEFAULT_RESAMPLES;
  if (!Number.isInteger(seed) || seed < 0) throw inputError("report", "seed", "must be a non-negative integer");
  if (!Number.isInteger(resamples) || resamples < 1) throw inputError("report", "resamples", "must be a positive integer");
  const inputs = [];
  for (const dir of runDirs) inputs.push(await readRun(dir, opts));
  assertComparable(inputs, opts.allowMixed === true);
  if (opts.rcmTable) assertRcmArms(inputs[0]!, inputs.slice(1));
  const configs = inputs.map((input) => buildConfigReport(input, { seed, resamples }));
  citeHandoffScores(configs, opts.handoff ?? []);
  return {
    format: REPORT_FORMAT,
    bootstrap: { seed, resamples, method: "percentile", level: 0.95 },
    configs,
    summary: crossConfigSummary(configs, { seed, resamples }),
    figures: figuresData(configs),
    comparison: opts.compare ? compareConfigs(configs[0]!, configs[1]!, { seed, resamples }) : null,
    ...(opts.rcmTable ? { rcm_table: rcmTable(configs[0]!, configs.slice(1), { seed, resamples }) } : {}),
  };
}

export interface RenderOptions {
  /** Where the output goes (html: links to run files are relative to this file's directory). */
  outFile?: string;
  /** table and markdown: add the task catalogue (json and html always carry it). */
  catalogue?: boolean;
}

/** The report in one of the formats; json is the complete `switch-swe.report/2` document. */
export function renderReport(report: Report, format: ReportFormat, opts: RenderOptions = {}): string {
  // Every format is meant to be shared: no absolute path of this machine in any of them.
  const shared = shareableReport(report);
  switch (format) {
    case "table":
      return renderTable(shared, { catalogue: opts.catalogue === true });
    case "markdown":
      return renderMarkdown(shared, { catalogue: opts.catalogue === true });
    case "json":
      return `${JSON.stringify(shared, null, 2)}\n`;
    case "csv":
      return renderCsv(shared);
    case "html":
      return renderHtml(report, { outFile: opts.outFile, shared });
  }
}
