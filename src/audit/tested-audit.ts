import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toJsonText } from "../core/json-file.js";
import { loadDataset, type Dataset, type LoadedTask } from "../dataset/load.js";
import type { AuditFinding } from "../formats/audit.js";
import { materializeManifest } from "../manifests/materialize.js";
import type { TaskManifest } from "../manifests/task-manifest.js";
import { touchedTestModules } from "../qualify/qualify-task.js";
import type { PreparedEnv } from "../testbed/env-cache.js";
import { environmentFor, freshCheckout, type NamedPatch } from "../testbed/task-testbed.js";
import type { TestRun } from "../testbed/test-run.js";
import { NO_MODULE, passed, stateRun } from "./state-run.js";
import { finding, listed } from "./finding.js";
import { moduleGroups, orderDependence } from "./order-dependence.js";
import { baseCollectionErrors, judgeOutcomes } from "./test-outcomes.js";
import { inScope } from "../testbed/pytest-ids.js";

/** The F2P ids stage `k` (1-based) is scored by: its own, or the task's when it is the only stage. */
const stageIds = (mt: TaskManifest["tasks"][number], k: number): readonly string[] =>
  mt.stages.length === 1 ? mt.verifier.fail_to_pass : mt.stages[k - 1]!.tests;

/**
 * `order-dependent` at state `k`: each module's F2P ids of stage `k` run by themselves (one more run
 * per module, in a checkout of their own), compared with `full`, the run of the touched modules there.
 */
async function aloneFindings(
  dataset: Dataset,
  task: LoadedTask,
  env: PreparedEnv,
  work: string,
  k: number,
  patches: NamedPatch[],
  ids: readonly string[],
  full: TestRun,
): Promise<AuditFinding[]> {
  const alone = new Map<string, boolean>();
  for (const [g, group] of moduleGroups(ids).entries()) {
    const run = await stateRun(dataset, task, env, work, `state-${k}-alone-${g}`, patches, group);
    // A run that cannot be used judges none of its ids (its module's trouble is another finding's).
    if (typeof run !== "string") for (const id of group) alone.set(id, passed(run, id));
  }
  return orderDependence(
    k,
    ids,
    (id) => passed(full, id),
    (id) => alone.get(id),
  );
}

/**
 * The checks that run tests, for one task: the base as shipped (no tests.patch) must import and
 * collect the test modules that exist there; then the base and each stage with tests.patch, once,
 * give the pass table `judgeOutcomes` reads, and after each stage its F2P ids run once more by module
 * (`order-dependent`). A set-up or run that fails is an `env-failure`.
 */
async function auditTask(dataset: Dataset, task: LoadedTask, mt: TaskManifest["tasks"][number], work: string): Promise<AuditFinding[]> {
  let env: PreparedEnv;
  try {
    const probe = join(work, "env-probe");
    env = await environmentFor(dataset, task, await freshCheckout(dataset, task, probe), () => {}, 30 * 60_000);
    rmSync(probe, { recursive: true, force: true });
  } catch (e) {
    return [finding("env-failure", null, "the environment cannot be built", (e as Error).message.split("\n")[0]!)];
  }
  const modules = touchedTestModules(dataset, task);
  const out: AuditFinding[] = [];
  const pristine = await stateRun(dataset, task, env, work, "pristine", [], modules);
  // Modules the tests patch creates are not judged at the base (as mining judges them): with none left, nothing is broken.
  if (typeof pristine === "string" && pristine !== NO_MODULE)
    out.push(finding("base-broken", null, "the test modules that exist at the base cannot be run there", pristine));
  const tests = { name: "tests.patch", text: task.testsPatch };
  const stages = task.stagePatches.map((text, k) => ({ name: `stage-${k + 1}.patch`, text }));
  const passes = new Map<string, boolean[]>();
  const ids = [...task.verifier.fail_to_pass, ...task.verifier.pass_to_pass];
  let afterLast: readonly string[] = [];
  let uncollected = new Set<string>();
  for (let k = 0; k <= stages.length; k++) {
    const run = await stateRun(dataset, task, env, work, `state-${k}`, [...stages.slice(0, k), tests], modules);
    if (typeof run === "string") {
      if (k > 0) return [...out, finding("env-failure", k, `the tests cannot run after stage ${k}`, run)];
      // At the base a module may be uncollectable because it imports what the stages add: every test fails there.
      for (const id of ids) passes.set(id, [false]);
      uncollected = new Set(ids);
      continue;
    }
    if (k === 0) uncollected = new Set(ids.filter((id) => run.collectionErrors.some((s) => inScope(id, s))));
    for (const id of ids) passes.set(id, [...(passes.get(id) ?? []), passed(run, id)]);
    afterLast = run.collectionErrors;
    if (k > 0) {
      const patches = [...stages.slice(0, k), tests];
      out.push(...(await aloneFindings(dataset, task, env, work, k, patches, stageIds(mt, k), run)));
    }
  }
  if (typeof pristine !== "string") out.push(...baseFindings(pristine.collectionErrors, afterLast, ids));
  return [...out, ...judgeOutcomes(mt, passes, uncollected)];
}

/** `base-broken` for the base's own collection errors; a warning for modules the environment cannot load in any state. */
function baseFindings(atBase: readonly string[], afterLast: readonly string[], declared: readonly string[]): AuditFinding[] {
  const { base, environment } = baseCollectionErrors(atBase, afterLast, declared);
  const out: AuditFinding[] = [];
  if (base.length > 0) out.push(finding("base-broken", null, "test collection (or the package's import) fails at the base", listed(base)));
  if (environment.length > 0) {
    const what =
      "test module(s) cannot be collected at the base nor after the last stage (the environment lacks what they import): no test of theirs is declared";
    out.push(finding("env-failure", null, what, listed(environment), "warning"));
  }
  return out;
}

/**
 * `datasets audit --run-tests` for the tasks of the repositories in `sources`: the manifest (those
 * tasks) materialized under `work` with every digest checked, then each task's runs, sandboxed as
 * `tasks qualify` runs them. Per task id, its findings.
 */
export async function testedAudit(
  manifest: TaskManifest,
  sources: Record<string, string>,
  work: string,
): Promise<Map<string, AuditFinding[]>> {
  const subset: TaskManifest = {
    ...manifest,
    repos: Object.fromEntries(Object.entries(manifest.repos).filter(([n]) => n in sources)),
    tasks: manifest.tasks.filter((t) => t.repo in sources),
  };
  mkdirSync(work, { recursive: true });
  const subsetFile = join(work, "manifest.json");
  writeFileSync(subsetFile, toJsonText(subset));
  await materializeManifest({ manifestFile: subsetFile, out: join(work, "dataset"), sources });
  const dataset = loadDataset(join(work, "dataset"));
  const out = new Map<string, AuditFinding[]>();
  for (const task of dataset.tasks) {
    const taskWork = join(work, "runs", task.id);
    mkdirSync(taskWork, { recursive: true });
    out.set(
      task.id,
      await auditTask(
        dataset,
        task,
        subset.tasks.find((t) => t.id === task.id)!,
        taskWork,
      ),
    );
    rmSync(taskWork, { recursive: true, force: true });
  }
  return out;
}
