import type { Command } from "commander";
import { formatProblem, InputError } from "../../core/errors.js";
import { validateDataset } from "../../dataset/validate.js";
import { testRunnerPackage } from "../../testbed/test-runners.js";
import { ExitCode } from "../exit-codes.js";
import { addImportCommand } from "./tasks-import.js";
import { addQualifyCommand } from "./tasks-qualify.js";
import { addMineCommand } from "./tasks-mine.js";
import { addWriteRequestsCommand } from "./tasks-write-requests.js";

export function registerTasks(program: Command): Command {
  const tasks = program.command("tasks").description("check, qualify, import and mine task datasets");
  tasks
    .command("validate")
    .description("check a dataset: schema, files, test lists, and that every patch parses and applies in order")
    .argument("<dataset>", "dataset directory")
    .option(
      "--pinned",
      "also refuse a repository whose set-up does not declare exact versions (Python minor version, pytest and each dependency with ==)",
    )
    .action(async (dir: string, o: { pinned?: boolean }) => {
      const { dataset, problems, warnings } = await validateDataset(dir, o.pinned === true ? { pinned: testRunnerPackage } : {});
      // A dataset that exists but is broken is a check that found problems (1); no dataset at all is bad input (2).
      if (!dataset && problems.some((p) => p.message === "dataset directory not found")) throw new InputError(problems);
      for (const w of warnings) process.stderr.write(`warning: ${formatProblem(w)}\n`);
      for (const p of problems) process.stdout.write(`${formatProblem(p)}\n`);
      const n = dataset?.tasks.length ?? 0;
      if (problems.length > 0) {
        process.stdout.write(`${problems.length} problem(s) in ${n} task(s)\n`);
        process.exitCode = ExitCode.checkFailed;
      } else {
        process.stdout.write(
          `${dataset!.manifest.name}@${dataset!.manifest.version}: ${n} tasks in ${Object.keys(dataset!.manifest.repos).length} repositories, all valid\n`,
        );
      }
    });
  addQualifyCommand(tasks);
  addImportCommand(tasks);
  addMineCommand(tasks);
  addWriteRequestsCommand(tasks);
  return tasks;
}
