import type { Command } from "commander";
import { materializeManifest } from "../../datasets/materialize.js";
import { collect, parseRepoSources } from "../options.js";

/** `datasets materialize MANIFEST --out DATASET [--repo NAME=PATH|URL]`. */
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
}
