import type { Command } from "commander";
import { auditManifests } from "../../audit/audit-manifests.js";
import { findingLines, summaryLine } from "../../audit/render.js";
import { toJsonText } from "../../core/json-file.js";
import { ExitCode } from "../exit-codes.js";
import { collect, parseRepoSources } from "../options.js";

/** `datasets audit MANIFEST... [--repo NAME=SRC] [--run-tests] [--json]`, added to the `datasets` group. */
export function addAuditCommand(datasets: Command): void {
  datasets
    .command("audit")
    .description(
      "check that every task measures what its requests ask: untested and no-behaviour stages, commit texts, paraphrase leaks, contradicted history, private test targets; with --run-tests also base breakage, P2P failing and F2P passing at the base, F2P mapped to the wrong stage, order-dependent F2P",
    )
    .argument("<manifests...>", "manifest.json files")
    .option("--repo <name=path|url>", "read this repository's patches (a local clone, mirror, bundle or URL) (repeatable)", collect)
    .option("--run-tests", "run the tests of the repositories given with --repo (sandboxed, as tasks qualify runs them)")
    .option("--json", "print the report as JSON (switch-swe.audit/1)")
    .action(async (files: string[], o: { repo?: string[]; runTests?: boolean; json?: boolean }) => {
      const report = await auditManifests({
        manifests: files,
        ...(o.repo ? { sources: parseRepoSources(o.repo) } : {}),
        ...(o.runTests ? { runTests: true } : {}),
        onTask: (t) => {
          if (!o.json) for (const line of findingLines(t)) process.stdout.write(`${line}\n`);
        },
      });
      if (o.runTests && report.repos_read.length === 0)
        process.stderr.write("warning: --run-tests without --repo: no repository to run, only the static checks ran\n");
      process.stdout.write(o.json ? toJsonText(report) : `${summaryLine(report)}\n`);
      if (report.summary.errors > 0) process.exitCode = ExitCode.checkFailed;
    });
}
