import { Option, type Command } from "commander";
import { toJsonText } from "../../core/json-file.js";
import { qualifyDataset } from "../../qualify/qualify-dataset.js";
import type { QualifyReport } from "../../qualify/qualify-task.js";
import { ExitCode } from "../exit-codes.js";
import { collect, parsePositive as positiveInt } from "../options.js";
import { queueUrlEnv } from "../../queue/queue-url.js";
import { securedQueueTarget } from "./queue.js";
import type { QualifyBackend } from "../../qualify/qualify-dataset.js";

/** `--queue`: BullMQ and its Redis client are loaded only then (a quarter of a second of CPU at every start otherwise). */
async function queueQualify(queue: string | boolean): Promise<QualifyBackend> {
  const target = securedQueueTarget(queue);
  const { queueQualifyBackend } = await import("../../queue/qualify-on-queue.js");
  return queueQualifyBackend(target);
}

export function qualifyText(r: QualifyReport): string {
  const head =
    `${r.task.padEnd(34)} ${r.qualified ? "qualified" : "NOT QUALIFIED"}  ` +
    `F2P ${r.observed.fail_to_pass.length} observed / ${r.declared.fail_to_pass.length} declared, ` +
    `P2P ${r.observed.pass_to_pass} observed / ${r.declared.pass_to_pass.length} declared, ` +
    `${r.observed.unstable.length} unstable  (${r.runs.length} suite runs, ${(r.duration_ms / 1000).toFixed(1)} s)`;
  return [head, ...r.problems.map((p) => `  problem: ${p}`), ...r.differences.map((d) => `  difference: ${d}`)].join("\n");
}

/** `tasks qualify DATASET [--task ID...] [--runs N] [--write] [--json]`, added to the `tasks` group. */
export function addQualifyCommand(tasks: Command): void {
  tasks
    .command("qualify")
    .description(
      "run each task's test suite (whole, or the modules its tests touch) without and with its reference (N times each), classify every test as F2P, P2P or unstable, and compare with the declared lists",
    )
    .argument("<dataset>", "dataset directory")
    .option("--task <id>", "qualify only this task (repeatable)", collect)
    .option("--runs <n>", "suite runs per state", positiveInt("--runs"), 3)
    .option("--concurrency <n>", "tasks at once", positiveInt("--concurrency"), 2)
    .addOption(
      new Option(
        "--suite <which>",
        "run the whole suite, or only the test modules tests.patch changes and the declared ids live in (as `tasks mine --suite touched`)",
      )
        .choices(["whole", "touched"])
        .default("whole"),
    )
    .option("--write", "rewrite each task.json's fail_to_pass / pass_to_pass with what was observed")
    .option("--json", "print the reports as JSON")
    .option(
      "--queue [url]",
      `run the qualifications as jobs for \`switch-swe worker\`s on this Redis queue (default: $${queueUrlEnv}); --concurrency is then the workers' business`,
    )
    .action(
      async (
        dir: string,
        o: {
          task?: string[];
          runs: number;
          concurrency: number;
          suite: "whole" | "touched";
          write?: boolean;
          json?: boolean;
          queue?: string | boolean;
        },
      ) => {
        const backend = o.queue === undefined ? undefined : await queueQualify(o.queue);
        const { reports } = await qualifyDataset(dir, {
          ...(backend ? { backend } : {}),
          runs: o.runs,
          suite: o.suite,
          concurrency: o.concurrency,
          ...(o.task ? { tasks: o.task } : {}),
          ...(o.write ? { write: true } : {}),
          onReport: (r) => {
            if (!o.json) process.stdout.write(`${qualifyText(r)}\n`);
          },
        });
        const ok = reports.filter((r) => r.qualified).length;
        if (o.json) process.stdout.write(toJsonText(reports));
        else process.stdout.write(`${ok} of ${reports.length} task(s) qualify${o.write ? " (declared lists rewritten)" : ""}\n`);
        if (ok < reports.length) process.exitCode = ExitCode.checkFailed;
      },
    );
}
