import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { InfraFault } from "../core/infra-fault.js";
import { taskById, type Dataset, type LoadedTask } from "../dataset/load.js";
import { baseNotFoundHint, materializeRepo, resolveBase } from "../dataset/repo-cache.js";
import type { RunConfig } from "../formats/run-config.js";
import { workspaceNames, type SessionPair, type WorkspaceName } from "../formats/sessions.js";
import { environmentFor, taskEnvironment, testCommandOf } from "../testbed/task-testbed.js";
import type { WorkspaceEnvironments } from "../confine/task-env.js";
import type { SelectedSession } from "./session-selection.js";

/**
 * The task's own environment for the agent (issue 27): the environment each workspace's task sets up
 * for the verifier (testbed/env-cache.ts: built once per repository, commit and set-up, then cached
 * and sealed) is built before the agent's first request, so the agent can run the repository's tests
 * with the task's dependencies, as the paper's agents could. A task without set-up keeps the host's
 * python. How it appears inside the sandbox is confine/task-env.ts.
 */

/** The verifier's own set-up deadline: the agent's environment is the same one. */
const setupTimeoutMs = 30 * 60_000;

function taskOf(dataset: Dataset, pair: SessionPair, w: WorkspaceName): LoadedTask {
  const task = taskById(dataset).get(pair.workspaces[w] ?? "");
  if (!task) throw new InfraFault(`workspace ${w}: no task`, false);
  return task;
}

/**
 * The `PYTHONPATH=...` the test command sets before starting python (`PYTHONPATH=src python3 -m pytest`),
 * or null: it is relative to the checkout, so inside a workspace the agent's python imports it the way the
 * verifier's test run does.
 */
export function testCommandPythonPath(command: string): string | null {
  const m = /^\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*?PYTHONPATH=("[^"]*"|'[^']*'|\S*)/.exec(command);
  return m ? m[1]!.replace(/^["']|["']$/g, "") : null;
}

/** Builds (or finds cached) every workspace's task environment; the set-up's output is appended to `logFile`. */
export async function prepareWorkspaceEnvironments(dataset: Dataset, pair: SessionPair, logFile: string): Promise<WorkspaceEnvironments> {
  mkdirSync(dirname(logFile), { recursive: true });
  const log = (t: string) => appendFileSync(logFile, t);
  const envs = {} as WorkspaceEnvironments["envs"];
  // One after the other, each environment looked up once: workspaces of one repository usually share one
  // (its seal is checked by reading every file's status, most of a second for a 50 MB venv).
  const seen = new Map<string, WorkspaceEnvironments["envs"][WorkspaceName]>();
  for (const w of workspaceNames) {
    const task = taskOf(dataset, pair, w);
    const spec = taskEnvironment(dataset, task);
    if (spec.setup.length === 0) {
      envs[w] = null;
      continue;
    }
    let repo;
    try {
      repo = await materializeRepo(dataset, task.repo);
    } catch (e) {
      throw new InfraFault(`repository ${task.repo} is not available for the task's environment: ${(e as Error).message}`, true);
    }
    const commit = await resolveBase(repo, task.base);
    if (commit === null) throw new InfraFault(`base ${task.base} not found in repository ${task.repo}${baseNotFoundHint(repo)}`, false);
    const key = JSON.stringify([task.repo, spec.setup_commit ?? commit, spec.setup, spec.python]);
    if (!seen.has(key)) {
      log(`${w} (${task.id}): environment of repository ${task.repo}\n`);
      const env = await environmentFor(dataset, task, { repo, commit }, log, setupTimeoutMs);
      seen.set(key, env.dir === null ? null : { dir: env.dir, pathPrefix: env.pathPrefix, vars: env.vars });
    }
    envs[w] = seen.get(key)!;
  }
  const paths = new Set(workspaceNames.map((w) => testCommandPythonPath(testCommandOf(dataset, taskOf(dataset, pair, w)))));
  // Tasks of one repository share their test command; were they to differ, no one PYTHONPATH would be right.
  const pythonPath = paths.size === 1 ? [...paths][0]! : null;
  return { envs, pythonPath };
}

/** run.json `sandbox.task_environment`: whether the selected sessions' tasks bring an environment of their own, or the agent has the host's python. */
export function taskEnvironmentRecord(
  dataset: Dataset,
  selected: readonly SelectedSession[],
): NonNullable<NonNullable<RunConfig["sandbox"]>["task_environment"]> {
  const tasks = taskById(dataset);
  const ids = new Set(selected.flatMap((s) => workspaceNames.map((w) => s.pair.workspaces[w] ?? "")));
  const withSetup = [...ids].filter((id) => {
    const t = tasks.get(id);
    return t !== undefined && taskEnvironment(dataset, t).setup.length > 0;
  });
  const inside =
    "read-only at its own path, its bin first on PATH (python, python3 and pytest resolve to it; per workspace when they differ), the set-up's checkout hidden";
  const imports = "the workspace imported as the test command imports it (cwd, its PYTHONPATH)";
  if (withSetup.length === ids.size)
    return { source: "set-up", detail: `each task's set-up environment (the verifier's, built before the session) ${inside}; ${imports}` };
  if (withSetup.length === 0)
    return {
      source: "host",
      detail: `the tasks declare no set-up: the agent has the host's python (as the verifier's test runs do); ${imports}`,
    };
  return {
    source: "mixed",
    detail: `${withSetup.length} of ${ids.size} tasks set up an environment (${inside}); the others keep the host's python; ${imports}`,
  };
}
