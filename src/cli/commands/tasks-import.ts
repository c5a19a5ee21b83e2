import type { Command } from "commander";
import { formatProblem } from "../../core/errors.js";
import { importSwebench } from "../../importers/import-swebench.js";
import { ExitCode } from "../exit-codes.js";
import { collect, parseRepoSources } from "../options.js";

/** `tasks import-swebench INSTANCES --out DATASET [--requests FOLLOWUPS.json] [--test-command-map MAP.json]`. */
export function addImportCommand(tasks: Command): void {
  tasks
    .command("import-swebench")
    .description("turn SWE-bench-format instances (JSON array or JSONL) into tasks of a dataset directory")
    .argument("<instances>", "instances file (.json array or .jsonl)")
    .requiredOption("--out <dataset>", "dataset directory to create or extend")
    .option("--requests <file>", 'follow-up stages per instance: {"<instance_id>": [{"text": ..., "patch": ...}, ...]}')
    .option(
      "--test-command-map <file>",
      'per repository: {"owner/name": "test command" | {"test_command", "setup", "git", "mirror", "versions": {"<version or set-up commit>": {"setup", "test_command"}}}}',
    )
    .option(
      "--repo <owner/name=path|url>",
      "clone this repository from a local clone, mirror or bundle (or another URL) instead of GitHub (repeatable)",
      collect,
    )
    .action((instances: string, o: { out: string; requests?: string; testCommandMap?: string; repo?: string[] }) => {
      // Nothing importable throws an InputError (exit 2); some refused instances exit 1.
      const r = importSwebench({
        instancesFile: instances,
        outDir: o.out,
        ...(o.requests ? { requestsFile: o.requests } : {}),
        ...(o.testCommandMap ? { testCommandMapFile: o.testCommandMap } : {}),
        ...(o.repo ? { repoSources: parseRepoSources(o.repo) } : {}),
      });
      for (const p of r.refused) process.stderr.write(`${formatProblem(p)}\n`);
      process.stdout.write(
        `imported ${r.imported.length} task(s) into ${r.datasetDir}${r.refused.length > 0 ? `; ${r.refused.length} refused` : ""}\n`,
      );
      if (r.refused.length > 0) process.exitCode = ExitCode.checkFailed;
    });
}
