import { InputError } from "../../core/errors.js";
import type { Command } from "commander";
import { detectableGap, detectableGapLine, detectableGapWarning } from "../../core/power.js";
import { readJsonWith, toJsonText, writeFileAtomic } from "../../core/json-file.js";
import { loadDataset } from "../../dataset/load.js";
import { checkSessions } from "../../sessions/check.js";
import { buildCheckedSessions } from "../../sessions/checked-build.js";
import { subsetSessions } from "../../sessions/subset.js";
import { sessionsFileSchema } from "../../formats/sessions.js";
import { fewStagesWarning, formatProfileTable, pooledPairs, profileTable, sessionProfiles } from "../../sessions/stats.js";
import { ExitCode } from "../exit-codes.js";
import { collect, parseCount } from "../options.js";
import { stageFactsOf } from "../../sessions/stage-facts.js";
import { testedDepth } from "../../sessions/tested-stages.js";

export function registerSessions(program: Command): void {
  const sessions = program.command("sessions").description("build, validate, subset and profile paired session schedules");
  sessions
    .command("build")
    .description("choose interruptions by locality and write the paired base/switch schedules")
    .argument("<dataset>", "dataset directory")
    .requiredOption("--seed <n>", "seed of every random choice", parseCount("--seed"))
    .option("--near <k>", "number of near sessions (default: as many as possible)", parseCount("--near"))
    .option("--far <k>", "number of far sessions (default: as many as possible)", parseCount("--far"))
    .requiredOption("--out <file>", "sessions file to write")
    .action((dir: string, o: { seed: number; near?: number; far?: number; out: string }) => {
      const dataset = loadDataset(dir);
      const file = buildCheckedSessions(dataset, { seed: o.seed, near: o.near, far: o.far });
      writeFileAtomic(o.out, toJsonText(file));
      const near = file.pairs.filter((p) => p.locality === "near").length;
      process.stdout.write(
        `${o.out}: ${file.pairs.length} session pairs (${near} near, ${file.pairs.length - near} far), ${file.excluded.length} focus tasks excluded\n`,
      );
      for (const e of file.excluded) process.stdout.write(`  excluded ${e.reason}\n`);
      const few = fewStagesWarning(file);
      if (few) process.stderr.write(`warning: ${few}\n`);
    });
  sessions
    .command("validate")
    .description("check every session against the dataset with a validator independent of the builder")
    .argument("<sessions>", "sessions file")
    .requiredOption("--dataset <dir>", "dataset directory")
    .action((path: string, o: { dataset: string }) => {
      const file = readJsonWith(path, sessionsFileSchema);
      const dataset = loadDataset(o.dataset);
      const violations = checkSessions(file, dataset);
      for (const v of violations) process.stdout.write(`${v.session}: ${v.property}: ${v.message}\n`);
      if (violations.length > 0) process.exitCode = ExitCode.checkFailed;
      else process.stdout.write(`${path}: ${file.pairs.length} session pairs, all valid\n`);
    });
  sessions
    .command("subset")
    .description("write a sessions file of some of the pairs (a run of it reports over those pairs only)")
    .argument("<sessions>", "sessions file")
    .requiredOption("--pair <id...>", "pair ids (focus task ids) to keep")
    .requiredOption("--out <file>", "sessions file to write")
    .option("--dataset <dir>", "validate the subset against this dataset (as sessions validate) before writing it")
    .action((path: string, o: { pair: string[]; out: string; dataset?: string }) => {
      const file = readJsonWith(path, sessionsFileSchema);
      const subset = subsetSessions(file, path, o.pair);
      if (o.dataset !== undefined) {
        const violations = checkSessions(subset, loadDataset(o.dataset));
        for (const v of violations) process.stdout.write(`${v.session}: ${v.property}: ${v.message}\n`);
        if (violations.length > 0) {
          process.stderr.write(`${o.out}: not written: the subset does not validate against ${o.dataset}\n`);
          process.exitCode = ExitCode.checkFailed;
          return;
        }
      }
      writeFileAtomic(o.out, toJsonText(subset));
      const checked = o.dataset !== undefined ? `, all valid against ${o.dataset}` : "";
      process.stdout.write(`${o.out}: ${subset.pairs.length} of ${file.pairs.length} session pairs${checked}\n`);
    });
  sessions
    .command("stats")
    .description(
      "profile of the schedules (requests, workspace switches, focus returns, focus stages) and the smallest gap the pairs can detect; " +
        "several sessions files (one per dataset of a benchmark) are profiled and judged as one",
    )
    .argument("<sessions...>", "sessions file(s)")
    .option("--json", "print JSON")
    .option(
      "--dataset <dir|manifest>",
      "the tasks (a dataset directory or a manifest.json; repeatable): adds tested focus stages and the authored stages' share",
      collect,
    )
    .action(printStats);
}

/** `sessions stats`: the profile table, the smallest detectable gap and, with --dataset, tested depth. */
function printStats(paths: string[], o: { json?: boolean; dataset?: string[] }): void {
  const files = paths.map((path) => ({ path, file: readJsonWith(path, sessionsFileSchema) }));
  const { pairs, duplicate } = pooledPairs(files);
  if (duplicate)
    throw new InputError({
      file: duplicate.path,
      path: "pairs",
      message: `pair ${duplicate.id} is in an earlier sessions file too: the same dataset twice`,
    });
  const file = { pairs };
  const table = profileTable(file);
  const few = fewStagesWarning(file);
  if (few) process.stderr.write(`warning: ${few}\n`);
  // Before a run no discordance is known: the smallest gap these pairs detect at an assumed 25%.
  const power = detectableGap(file.pairs.length, null);
  const weak = detectableGapWarning(power);
  if (weak) process.stderr.write(`warning: ${weak}\n`);
  const pooled = files.length > 1 ? `${files.length} sessions files pooled: ${pairs.length} pairs\n` : "";
  const depth = o.dataset ? testedDepth(file, stageFactsOf(o.dataset)) : null;
  if (o.json) process.stdout.write(toJsonText({ files: paths, summary: table, power, sessions: sessionProfiles(file), ...(depth ?? {}) }));
  else {
    const focusMedian = table.base.overall.median_focus_stages;
    const tested = depth
      ? `tested focus stages (an F2P test of their own): median ${depth.tested_focus_stages.median} of ${focusMedian} focus stages; authored stages ${(depth.authored_stage_share * 100).toFixed(1)}% of focus stages\n`
      : "";
    process.stdout.write(`${pooled}${formatProfileTable(table)}\n${tested}${detectableGapLine(power)}\n`);
  }
}
