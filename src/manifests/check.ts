import { existsSync } from "node:fs";
import { InputError, zodProblems, type Problem } from "../core/errors.js";
import { readJson } from "../core/json-file.js";
import { unpinnedEnvironment, type RunnerPackage } from "../dataset/pinned-setup.js";
import { taskManifestReadSchema } from "./task-manifest.js";

export interface ManifestCheck {
  file: string;
  tasks: number;
  problems: Problem[];
}

/**
 * `datasets check MANIFEST...`: what can be judged of a manifest without its repositories: the schema
 * (the requirement→test map, authored stages and their digests included), texts that are commit-derived
 * drafts, and the pinned-environment
 * rule for every repository's set-up (dataset/pinned-setup.ts). Patches and digests of upstream
 * stages need the repositories: `datasets materialize` checks those.
 */
export function checkManifest(file: string, runnerPackage: RunnerPackage): ManifestCheck {
  if (!existsSync(file)) throw new InputError({ file, path: "", message: "file not found" });
  const parsed = taskManifestReadSchema.safeParse(readJson(file));
  if (!parsed.success) return { file, tasks: 0, problems: zodProblems(file, parsed.error) };
  const problems: Problem[] = [];
  // Commit-derived texts never ship: a draft, or (in files older than the marker) a stage without text.
  parsed.data.tasks.forEach((t, i) =>
    t.stages.forEach((s, k) => {
      if (s.draft === true)
        problems.push({
          file,
          path: `tasks[${i}].stages[${k}].draft`,
          message: `${t.id}: a draft text (derived from commit messages) cannot ship: write the request for the dataset`,
        });
      else if (s.text === undefined)
        problems.push({
          file,
          path: `tasks[${i}].stages[${k}].text`,
          message: `${t.id}: no text, so materialization derives it from commit messages, a draft that cannot ship: write the request for the dataset`,
        });
    }),
  );
  for (const [name, repo] of Object.entries(parsed.data.repos)) {
    for (const [path, message] of unpinnedEnvironment(repo.environment, `repos.${name}.environment`, runnerPackage))
      problems.push({ file, path, message: `not pinned: ${message}` });
  }
  return { file, tasks: parsed.data.tasks.length, problems };
}
