import type { Dataset } from "../dataset/load.js";
import { localityUnits, taskSourceFiles } from "../dataset/source-files.js";
import type { Footprint } from "./locality.js";

/** Source files and locality units of every task, under each repository's source rules. */
export function datasetFootprints(dataset: Dataset): Footprint[] {
  return dataset.tasks.map((t) => {
    const repo = dataset.manifest.repos[t.repo] ?? {};
    const files = taskSourceFiles(t.stagePatches, repo);
    return { id: t.id, repo: t.repo, files: new Set(files), units: new Set(localityUnits(files, repo)) };
  });
}
