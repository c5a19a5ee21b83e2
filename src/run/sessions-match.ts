import type { Problem } from "../core/errors.js";
import type { Dataset } from "../dataset/load.js";
import { workspaceNames, type SessionsFile } from "../formats/sessions.js";

/**
 * What the controller needs from a sessions file to run it against a dataset: the same dataset name and
 * version, known tasks of the pair's repository, five workspaces holding the pair's five tasks, and
 * request texts equal to the dataset's. (The full method check is `sessions check`.)
 */
export function sessionsMismatch(file: SessionsFile, sessionsPath: string, dataset: Dataset): Problem[] {
  const out: Problem[] = [];
  const problem = (path: string, message: string) => out.push({ file: sessionsPath, path, message });
  const { name, version } = dataset.manifest;
  if (file.dataset.name !== name || file.dataset.version !== version) {
    problem("dataset", `built for ${file.dataset.name}@${file.dataset.version}, but the dataset is ${name}@${version}`);
  }
  const tasks = new Map(dataset.tasks.map((t) => [t.id, t]));
  const pairIds = new Set<string>();
  file.pairs.forEach((pair, i) => {
    const at = `pairs[${i}]`;
    if (pairIds.has(pair.id)) problem(`${at}.id`, `pair ${pair.id} appears twice`);
    pairIds.add(pair.id);
    if (!(pair.repo in dataset.manifest.repos)) problem(`${at}.repo`, `unknown repository "${pair.repo}"`);
    const members = [pair.focus, ...pair.interruptions];
    for (const id of members) {
      const t = tasks.get(id);
      if (!t) problem(at, `task "${id}" is not in the dataset`);
      else if (t.repo !== pair.repo) problem(at, `task "${id}" is in repository ${t.repo}, the pair in ${pair.repo}`);
    }
    const held = workspaceNames.map((w) => pair.workspaces[w]);
    if ([...held].sort().join("\n") !== [...members].sort().join("\n")) {
      problem(`${at}.workspaces`, `must hold the pair's five tasks, one each (holds ${held.join(", ")})`);
    }
    for (const condition of ["base", "switch"] as const) {
      const steps = pair.schedules[condition];
      steps.forEach((step, k) => {
        const sp = `${at}.schedules.${condition}[${k}]`;
        if (pair.workspaces[step.workspace] !== step.task)
          problem(`${sp}.workspace`, `${step.workspace} holds ${pair.workspaces[step.workspace]}, not ${step.task}`);
        const task = tasks.get(step.task);
        if (!task) {
          problem(`${sp}.task`, `task "${step.task}" is not in the dataset`);
          return;
        }
        if (step.kind !== "stage") return;
        const req = task.requests[step.stage - 1];
        if (!req) problem(`${sp}.stage`, `task ${step.task} has ${task.requests.length} stages, not ${step.stage}`);
        else if (req.text !== step.text) problem(`${sp}.text`, `differs from the dataset's request ${step.stage} of ${step.task}`);
      });
      const last = steps[steps.length - 1];
      if (!last || last.kind !== "finalization" || last.task !== pair.focus) {
        problem(`${at}.schedules.${condition}`, "must end with the finalization of the focus task");
      }
    }
  });
  return out;
}
