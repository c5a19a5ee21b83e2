import type { Command } from "commander";
import { formatProblem } from "../../core/errors.js";
import { checkManifest } from "../../manifests/check.js";
import { testRunnerPackage } from "../../testbed/test-runners.js";
import { materializeManifest } from "../../manifests/materialize.js";
import { ExitCode } from "../exit-codes.js";
import { mergeManifestFiles } from "../../manifests/merge.js";
import { foldStage } from "../../manifests/fold.js";
import { collect, parsePositive, parseRepoSources } from "../options.js";
import { addAuditCommand } from "./datasets-audit.js";
import { addAuthorCommand } from "./datasets-author.js";

/** `datasets materialize MANIFEST --out DATASET [--repo NAME=PATH|URL]`, `datasets merge MANIFEST... --out FILE`, `datasets check MANIFEST...`, `datasets audit MANIFEST...`, `datasets fold MANIFEST --task ID --stage K`, `datasets author MANIFEST --task ID --after K ...`. */
export function registerDatasets(program: Command): void {
  const datasets = program.command("datasets").description("datasets shipped as manifests (URLs, commits, test ids, digests)");
  datasets
    .command("materialize")
    .description("derive a dataset's patches from its repositories and check every digest the manifest records")
    .argument("<manifest>", "manifest.json (switch-swe.task-manifest/2 or /1)")
    .requiredOption("--out <dataset>", "dataset directory to write")
    .option("--repo <name=path|url>", "clone this repository from a local clone, mirror or bundle (or another URL) (repeatable)", collect)
    .action(async (manifest: string, o: { out: string; repo?: string[] }) => {
      const r = await materializeManifest({ manifestFile: manifest, out: o.out, ...(o.repo ? { sources: parseRepoSources(o.repo) } : {}) });
      process.stdout.write(`${r.tasks} task(s) materialized into ${r.dir}; every digest matches\n`);
    });
  datasets
    .command("check")
    .description(
      "lint manifests without their repositories: schema, F2P mapped to stages, authored stages, and pinned environments (exact Python, pytest and dependency versions)",
    )
    .argument("<manifests...>", "manifest.json files")
    .action((files: string[]) => {
      const checks = files.map((f) => checkManifest(f, testRunnerPackage));
      for (const c of checks) for (const p of c.problems) process.stdout.write(`${formatProblem(p)}\n`);
      const failed = checks.filter((c) => c.problems.length > 0);
      process.stdout.write(
        `${checks.length - failed.length} of ${checks.length} manifest(s) pass${failed.length > 0 ? `; ${failed.reduce((n, c) => n + c.problems.length, 0)} problem(s) in ${failed.map((c) => c.file).join(", ")}` : ""}\n`,
      );
      if (failed.length > 0) process.exitCode = ExitCode.checkFailed;
    });
  addAuditCommand(datasets);
  addAuthorCommand(datasets);
  datasets
    .command("merge")
    .description(
      "one manifest from several (mining runs over other ranges or paths, other repositories): shared repositories must be identical, a task id in several must be the same task",
    )
    .argument("<manifests...>", "manifest.json files, in the order their tasks are kept")
    .requiredOption("--out <file>", "manifest to write: a new file, or one of the inputs")
    .option("--name <name>", "dataset name (default: the first manifest's)")
    .action((files: string[], o: { out: string; name?: string }) => {
      const m = mergeManifestFiles(files, o.out, o.name);
      process.stdout.write(
        `${m.tasks.length} task(s) of ${Object.keys(m.repos).length} repositor${Object.keys(m.repos).length === 1 ? "y" : "ies"} from ${files.length} manifest(s); ${o.out}\n`,
      );
    });
  datasets
    .command("fold")
    .description(
      "join a stage that reading finds is no stage (no behaviour of its own, or taking back the step before) to its neighbour: the stage before, or the next for the first; tests stay mapped, digests are derived again, the manifest is rewritten",
    )
    .argument("<manifest>", "manifest.json, rewritten in place")
    .requiredOption("--task <id>", "the task")
    .requiredOption("--stage <k>", "the stage to fold (1-based)", parsePositive("--stage"))
    .option("--repo <name=path|url>", "clone this repository from a local clone, mirror or bundle (or another URL) (repeatable)", collect)
    .action(async (manifest: string, o: { task: string; stage: number; repo?: string[] }) => {
      const r = await foldStage({
        manifestFile: manifest,
        task: o.task,
        stage: o.stage,
        ...(o.repo ? { sources: parseRepoSources(o.repo) } : {}),
      });
      const s = r.task.stages[r.into - 1]!;
      process.stdout.write(
        `${r.task.id}: stage ${o.stage} folded into ${o.stage === 1 ? "the next stage, now stage 1," : `stage ${r.into},`} which ${s.cut ? `ends at ${s.cut.slice(0, 12)}` : "is authored"}; ${r.task.stages.length} stage(s) now; qualify the task again (tasks qualify --runs 3)\n`,
      );
      if (r.textKept)
        process.stderr.write(
          `warning: ${r.task.id}: stage ${r.into} keeps its text written for the dataset: read it again, it asks for less than the stage now does\n`,
        );
    });
}
