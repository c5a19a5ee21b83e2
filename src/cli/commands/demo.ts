import type { Command } from "commander";
import { InputError, formatProblem } from "../../core/errors.js";
import { sampleDatasetDir } from "../../core/package-paths.js";
import { toJsonText, writeFileAtomic } from "../../core/json-file.js";
import { validateDataset } from "../../dataset/validate.js";
import { buildSessions } from "../../sessions/build.js";
import { checkSessions } from "../../sessions/check.js";
import { formatProfileTable, profileTable } from "../../sessions/stats.js";
import { join, resolve } from "node:path";
import { ExitCode } from "../exit-codes.js";

export function registerDemo(program: Command): void {
  program
    .command("demo")
    .description("validate the embedded sample dataset, build its sessions and print their profile")
    .option("--out <dir>", "where the demo writes its files", "switch-swe-demo")
    .option("--seed <n>", "seed", "0")
    .action(async (o: { out: string; seed: string }) => {
      const out = resolve(o.out);
      const { dataset, problems } = await validateDataset(sampleDatasetDir);
      if (!dataset || problems.length > 0) {
        for (const p of problems) process.stderr.write(`${formatProblem(p)}\n`);
        process.exitCode = ExitCode.checkFailed;
        return;
      }
      process.stdout.write(`dataset ${dataset.manifest.name}@${dataset.manifest.version}: ${dataset.tasks.length} tasks, valid\n`);
      const file = buildSessions(dataset, { seed: Number(o.seed) });
      const violations = checkSessions(file, dataset);
      if (violations.length > 0) throw new InputError(violations.map((v) => ({ file: v.session, path: v.property, message: v.message })));
      const sessionsPath = join(out, "sessions.json");
      writeFileAtomic(sessionsPath, toJsonText(file));
      process.stdout.write(`sessions: ${sessionsPath} (${file.pairs.length} pairs, validated)\n\n${formatProfileTable(profileTable(file))}\n`);
    });
}
