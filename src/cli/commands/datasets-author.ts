import type { Command } from "commander";
import { listed } from "../../audit/finding.js";
import { authorStage } from "../../audit/author.js";
import { ExitCode } from "../exit-codes.js";
import { collect, parsePositive, parseRepoSources } from "../options.js";

/** `datasets author MANIFEST --task ID --after K --text FILE --patch FILE --tests FILE [--repo NAME=SRC]`, in the `datasets` group. */
export function addAuthorCommand(datasets: Command): void {
  datasets
    .command("author")
    .description(
      "append a benchmark-authored stage after the task's last stage: its F2P tests found by running the tests before and after " +
        "the patch, the audit's history checks passed (no upstream line taken back, its tests not failing at the repository's " +
        "newest commit); at most one per task",
    )
    .argument("<manifest>", "manifest.json, rewritten in place (atomically)")
    .requiredOption("--task <id>", "the task")
    .requiredOption("--after <k>", "the stage the authored one follows: the task's last (1-based)", parsePositive("--after"))
    .requiredOption("--text <file>", "the request text, written for the dataset")
    .requiredOption("--patch <file>", "the reference change (non-test files only), a unified diff")
    .requiredOption("--tests <file>", "the regression tests (test files only), a unified diff applied after the task's tests")
    .option("--repo <name=path|url>", "clone this repository from a local clone, mirror or bundle (or another URL) (repeatable)", collect)
    .action(async (manifest: string, o: { task: string; after: number; text: string; patch: string; tests: string; repo?: string[] }) => {
      const files = { textFile: o.text, patchFile: o.patch, testsFile: o.tests };
      const sources = o.repo ? { sources: parseRepoSources(o.repo) } : {};
      const r = await authorStage({ manifestFile: manifest, task: o.task, after: o.after, ...files, ...sources });
      for (const f of r.findings) process.stdout.write(`${o.task}: stage ${r.stage}: ${f.kind}: ${f.what}, ${f.evidence}\n`);
      if (r.task === null) {
        process.stdout.write(`${o.task}: stage ${r.stage} not written: it contradicts the repository's history; ${manifest} unchanged\n`);
        process.exitCode = ExitCode.checkFailed;
        return;
      }
      const left = r.passAtBase.length > 0 ? `; left out, passing at the base already: ${listed(r.passAtBase)}` : "";
      const what = `${o.task}: stage ${r.stage} authored after stage ${o.after}: ${r.f2p.length} F2P test(s), ${listed(r.f2p)}${left}`;
      process.stdout.write(`${what}; ${r.newest}; ${manifest} rewritten; qualify the task again (tasks qualify --runs 3)\n`);
    });
}
