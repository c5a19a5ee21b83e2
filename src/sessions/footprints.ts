import type { Dataset } from "../dataset/load.js";
import { parentDirs, taskSourceFiles } from "../dataset/source-files.js";
import type { Footprint } from "./locality.js";

/** Source files and parent directories of every task, under each repository's source rules. */
export function datasetFootprints(dataset: Dataset): Footprint[] {
  return dataset.tasks.map((t) => {
    const repo = dataset.manifest.repos[t.repo] ?? {};
    const files = taskSourceFiles(t.stagePatches, repo);
    return { id: t.id, repo: t.repo, files: new Set(files), parents: new Set(parentDirs(files)) };
  });
}
