import { packageVersion } from "../core/package-paths.js";
import { isRemoteSource } from "../dataset/source-location.js";
import type { MineBackend } from "../mine/candidate-tests.js";
import { putBlob } from "./blob-store.js";
import { mineJobKey } from "./keys.js";
import { openQueueRun } from "./queue-run-file.js";
import type { SecuredQueue } from "./queue-secret.js";
import { bundleRevisions } from "./repo-bundles.js";
import type { MineJob } from "./task-job-schema.js";
import { TaskJobs } from "./task-jobs.js";

/**
 * Candidates in flight at once: each waits for its job, and the workers set the pace. Bounded because
 * each candidate's pre-checks (git processes) run here before its job is added.
 */
const inFlight = 64;

/**
 * `tasks mine --queue`: the candidates' test runs as jobs for the queue's workers; everything else (the
 * scan, the pre-checks on diffs, the manifest and report after every candidate) stays in `tasks mine`.
 * The run id lives in OUT/queue.json, so a coordinator run again on the same --out (after a kill -9)
 * finds the jobs and results of the one before.
 */
export function queueMineBackend(target: SecuredQueue): MineBackend {
  return {
    async open(f, onLine) {
      const { run } = openQueueRun(f.out, target.display);
      const spec = f.dataset.manifest.repos[f.name]!;
      const source = "path" in spec ? spec.path : spec.git;
      // The history the candidates come from travels once, as a bundle (encrypted like every blob); a URL is cloned by each worker.
      const revisions = ["HEAD", f.tip, ...(f.repo.environment?.setup_commit ? [f.repo.environment.setup_commit] : [])];
      const bundle = isRemoteSource(source) ? null : await bundleRevisions(f.dataset, f.name, revisions);
      if (bundle) onLine(`queue ${target.display}: run ${run.run_id}, repository bundle ${(bundle.bytes.length / 1e6).toFixed(1)} MB`);
      const jobs = await TaskJobs.open(
        target,
        run.run_id,
        { dir: f.out, kind: "mine", label: `tasks mine ${f.name}`, jobs: f.candidates },
        async (redis) => {
          if (bundle) await putBlob(redis, bundle.digest, bundle.bytes, target.secret);
        },
        onLine,
      );
      const repo = { ...f.repo, git: source };
      return {
        jobs: inFlight,
        close: () => jobs.close(),
        withdraw: () => jobs.withdraw(),
        test: async (input) => {
          const job: MineJob = {
            kind: "mine",
            run_id: run.run_id,
            switch_swe_version: packageVersion,
            dataset_name: f.dataset.manifest.name,
            repo_name: f.name,
            repo,
            bundle: bundle?.digest ?? null,
            candidate: input.entry.provenance,
            entry: input.entry,
            test_files: input.testFiles,
            runs: input.runs,
            suite: input.suite,
          };
          const r = await jobs.run(mineJobKey(job.candidate), job);
          if (r.kind !== "mine") throw new Error(`candidate ${job.candidate}: the queue returned a ${r.kind} result`);
          return { verdict: r.verdict, testRuns: r.test_runs };
        },
      };
    },
  };
}
