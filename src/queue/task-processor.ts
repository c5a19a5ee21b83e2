import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Job } from "bullmq";
import { taskById, type Dataset } from "../dataset/load.js";
import { materializeRepo } from "../dataset/repo-cache.js";
import { datasetRepoOf } from "../manifests/materialize.js";
import { runCandidateTests } from "../mine/candidate-tests.js";
import { qualifyTask } from "../qualify/qualify-task.js";
import { storeResult } from "./attempt-fence.js";
import { keys, mineJobKey, qualifyJobKey, resultTtlS, taskQueue } from "./keys.js";
import { encodeResult } from "./result-schema.js";
import type { JobHandler, ProcessorContext } from "./job-handler.js";
import { taskJobSchema, type MineJob, type QualifyJob, type TaskJob } from "./task-job-schema.js";
import type { TaskResult } from "./task-result-schema.js";
import { withBundles } from "./repo-bundles.js";
import { workerDataset } from "./worker-dataset.js";

const format = "switch-swe.queue-task-result/1" as const;

/** A candidate's test runs, as `tasks mine` runs them, from the repository bundle the job names. */
async function mine(job: MineJob, c: ProcessorContext, work: string): Promise<TaskResult> {
  const shipped: Dataset = {
    root: work,
    manifest: { name: job.dataset_name, version: "1", repos: { [job.repo_name]: datasetRepoOf(job.repo) } },
    tasks: [],
  };
  const dataset = await withBundles(c.redis, c.secret, shipped, job.bundle ? { [job.repo_name]: job.bundle } : {});
  const gitDir = (await materializeRepo(dataset, job.repo_name)).gitDir;
  const r = await runCandidateTests(dataset, gitDir, job.repo, join(work, "run"), {
    entry: job.entry,
    testFiles: job.test_files,
    runs: job.runs,
    suite: job.suite,
  });
  return { format, kind: "mine", worker: c.worker, candidate: job.candidate, verdict: r.verdict, test_runs: r.testRuns };
}

/** A task's qualification, as `tasks qualify` runs it, in the dataset the job names. */
async function qualify(job: QualifyJob, c: ProcessorContext): Promise<TaskResult> {
  const dataset = await workerDataset(c.redis, c.secret, job.dataset);
  const task = taskById(dataset).get(job.task);
  if (!task) throw new Error(`task ${job.task} is not in dataset ${job.dataset.name} ${job.dataset.version}`);
  return { format, kind: "qualify", worker: c.worker, report: await qualifyTask(dataset, task, { runs: job.runs, suite: job.suite }) };
}

const jobKeyOf = (job: TaskJob) => (job.kind === "mine" ? mineJobKey(job.candidate) : qualifyJobKey(job.task));

/**
 * Mining and qualification jobs: the same test runs as a local `tasks mine` or `tasks qualify`, in the
 * test-run sandbox; the result is signed and stored once (the first try's wins).
 */
export const taskJobs: JobHandler<TaskJob> = { queue: taskQueue, what: "task", schema: taskJobSchema, handle: processTaskJob };

async function processTaskJob(raw: Job, job: TaskJob, _token: string | undefined, c: ProcessorContext): Promise<string> {
  const jobKey = jobKeyOf(job);
  const key = keys.taskResult(job.run_id, jobKey);
  const before = await c.redis.getBuffer(key);
  if (before !== null && c.secret.verify(before, key) !== null) return "already done";
  // Something under the key that no holder of the secret wrote (forged) must not keep the result out.
  if (before !== null) await c.redis.del(key);
  const id = String(raw.id);
  const what = job.kind === "mine" ? `mine ${job.candidate.slice(0, 40)}` : `qualify ${job.task}`;
  c.tasks.set(id, { run: job.run_id, job: what, since: new Date().toISOString() });
  c.changed();
  const work = mkdtempSync(join(c.workRoot, "task-"));
  c.log(`start ${what} (run ${job.run_id})`);
  try {
    let result: TaskResult;
    try {
      result = job.kind === "mine" ? await mine(job, c, work) : await qualify(job, c);
    } catch (e) {
      // Not this job's verdict but this machine's failure to run it: the coordinator tries it again.
      result = { format, kind: "infra_fault", worker: c.worker, detail: (e as Error).message };
    }
    if (c.lockLost.has(id)) return "lock lost";
    if (!(await storeResult(c.redis, key, encodeResult(result, c.secret, key)))) return "already done";
    await c.redis.multi().rpush(keys.done(job.run_id), jobKey).expire(keys.done(job.run_id), resultTtlS).exec();
    c.log(
      `end ${what} (run ${job.run_id}): ${result.kind === "infra_fault" ? `infrastructure fault (${result.detail.split("\n")[0]})` : "done"}`,
    );
    return result.kind;
  } finally {
    c.tasks.delete(id);
    c.lockLost.delete(id);
    c.changed();
    rmSync(work, { recursive: true, force: true, maxRetries: 3 });
  }
}
