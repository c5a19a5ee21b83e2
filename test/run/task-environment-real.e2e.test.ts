import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/core/package-paths.js";
import { loadDataset } from "../../src/dataset/load.js";
import { workspaceNames, type SessionsFile, type WorkspaceName } from "../../src/formats/sessions.js";
import { cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { skipWithout } from "../helpers/tools.js";
import { agentAgainstVerifier, expectSameOutcomes } from "./task-env-agent.js";

/**
 * The task's environment inside the agent's sandbox on a real shipped manifest (markdown: a venv with
 * pinned pytest and pyyaml built by its set-up, tests importing the workspace through the test command's
 * `PYTHONPATH=.`), materialized from a local mirror. The smallest manifests (cachetools, sqlparse) hold
 * fewer than the five tasks a session needs. CI has no network and no mirrors: set
 * SWITCH_SWE_REAL_MIRRORS to a directory holding `Python-Markdown+markdown/repo` (as for
 * test/dataset/real-manifests.e2e.test.ts); the set-up's pip needs the package index, or a local one
 * named by PIP_INDEX_URL / PIP_EXTRA_INDEX_URL / PIP_FIND_LINKS (the set-up passes those on; a user's pip.conf it does not see).
 */
const missingTool = skipWithout(import.meta.url, "bwrap");
const mirrors = process.env.SWITCH_SWE_REAL_MIRRORS;
const mirror = mirrors
  ? [join(mirrors, "Python-Markdown+markdown", "repo"), join(mirrors, "Python-Markdown+markdown")].find((d) => existsSync(join(d, "HEAD")))
  : undefined;
const skipWhy = !mirrors
  ? "SWITCH_SWE_REAL_MIRRORS is not set: the real manifest needs a local mirror of its repository"
  : !mirror
    ? `no mirror of Python-Markdown/markdown under ${mirrors}`
    : null;

/**
 * One session pair over the dataset's five tasks, written here: `sessions build` finds no locality with
 * four eligible interruptions among them (they share source files), and `run` needs only a consistent file.
 */
function onePair(datasetDir: string): SessionsFile {
  const dataset = loadDataset(datasetDir);
  const tasks = dataset.tasks.slice(0, 5);
  expect(tasks).toHaveLength(5);
  const focus = tasks[0]!;
  const workspaces = Object.fromEntries(workspaceNames.map((w, i) => [w, tasks[i]!.id])) as Record<WorkspaceName, string>;
  const base = [
    ...focus.requests.map((r, k) => ({ kind: "stage" as const, task: focus.id, workspace: "w00" as const, stage: k + 1, text: r.text })),
    { kind: "finalization" as const, task: focus.id, workspace: "w00" as const },
  ];
  const pair = {
    id: focus.id,
    focus: focus.id,
    repo: focus.repo,
    locality: "far" as const,
    interruptions: tasks.slice(1).map((t) => t.id),
    workspaces,
    source_files: {},
    schedules: { base, switch: base },
  };
  return {
    format: "switch-swe.sessions/1",
    dataset: { name: dataset.manifest.name, version: dataset.manifest.version },
    seed: 0,
    pairs: [pair],
    excluded: [],
  } as unknown as SessionsFile;
}

describe.skipIf(missingTool)("the task's environment inside the agent's sandbox, on a real manifest", () => {
  it(
    "markdown: python, python3 and pytest inside are the set-up's venv, and the agent's test run matches the verifier test by test",
    { timeout: 1_200_000 },
    (ctx) => {
      if (skipWhy) return ctx.skip(skipWhy);
      const root = tempDir("switch-swe-task-env-real-");
      const env = { SWITCH_SWE_CACHE: join(root, "cache") };
      const manifestFile = join(packageRoot, "datasets", "real", "markdown", "manifest.json");
      const datasetDir = join(root, "markdown");
      const m = cli(["datasets", "materialize", manifestFile, "--out", datasetDir, "--repo", `markdown=${mirror!}`], { env });
      expect(m.code, m.stderr).toBe(0);
      const sessionsPath = join(root, "sessions.json");
      writeFileSync(sessionsPath, JSON.stringify(onePair(datasetDir)));
      const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as { repos: { markdown: { environment: { test_command: string } } } };
      const x = agentAgainstVerifier(root, datasetDir, sessionsPath, manifest.repos.markdown.environment.test_command, env);
      expectSameOutcomes(x);
      expect(x.runJson.sandbox.task_environment?.source).toBe("set-up");
      const r = /^RESOLVED python=(\S+) python3=(\S+) pytest=(\S+) prefix=(\S+)$/.exec(x.resolved);
      expect(r, x.resolved).not.toBeNull();
      expect(r![4]).toMatch(/\/envs\/[0-9a-f]{32}\/venv$/);
      expect([r![1], r![2], r![3]]).toEqual([`${r![4]}/bin/python`, `${r![4]}/bin/python3`, `${r![4]}/bin/pytest`]);
      expect(x.envLine).toBe("ENV checkout_entries=0 writable=no");
    },
  );
});
