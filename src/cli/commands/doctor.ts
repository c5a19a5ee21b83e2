import { Option, type Command } from "commander";
import { runDoctorChecks } from "../../doctor/probes.js";
import { formatDoctor, judge } from "../../doctor/uses.js";
import { doctorUses, type DoctorUse } from "../../formats/doctor.js";
import { ExitCode } from "../exit-codes.js";

export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .description(
      "what this machine can do: node, git, python3 and pytest; bubblewrap and user namespaces; socat; cgroups; redis-server; Chromium; " +
        "each agent CLI; the cache's free disk. For each: what it enables and the command that installs it. " +
        "Exit 0 when everything the named use needs is here, 1 otherwise",
    )
    .addOption(new Option("--for <use>", "the use to judge").choices(doctorUses).default("demo"))
    .option("--json", "one JSON object (switch-swe.doctor/1)")
    .action(async (o: { for: DoctorUse; json?: boolean }) => {
      const report = judge(o.for, await runDoctorChecks());
      process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatDoctor(report)}\n`);
      process.exitCode = report.ready ? ExitCode.ok : ExitCode.checkFailed;
    });
}
