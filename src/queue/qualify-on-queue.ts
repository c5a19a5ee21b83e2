import { randomBytes } from "node:crypto";
import { packageVersion } from "../core/package-paths.js";
import type { QualifyBackend } from "../qualify/qualify-dataset.js";
import { jobDataset, prepareShipment, ship } from "./dataset-shipment.js";
import { qualifyJobKey } from "./keys.js";
import type { SecuredQueue } from "./queue-secret.js";
import type { QualifyJob } from "./task-job-schema.js";
import { TaskJobs } from "./task-jobs.js";

/**
 * `tasks qualify --queue`: one job per task for the queue's workers, the dataset shipped as `run --queue`
 * ships it (the pack and bundles of repositories outside it, encrypted). `--write` and the printed reports
 * stay here. A qualification keeps no state between invocations, so each has a run id of its own.
 */
export function queueQualifyBackend(target: SecuredQueue): QualifyBackend {
  return {
    async open(dataset, tasks) {
      const shipment = await prepareShipment(dataset);
      const runId = randomBytes(8).toString("hex");
      const jobs = await TaskJobs.open(
        target,
        runId,
        { dir: dataset.root, kind: "qualify", label: `tasks qualify ${dataset.manifest.name}`, jobs: tasks },
        (redis) => ship(redis, shipment, target.secret),
        (l) => process.stderr.write(`${l}\n`),
      );
      return {
        concurrency: Math.max(1, tasks),
        close: () => jobs.close(),
        qualify: async (task, o) => {
          const job: QualifyJob = {
            kind: "qualify",
            run_id: runId,
            switch_swe_version: packageVersion,
            dataset: jobDataset(dataset, shipment),
            task: task.id,
            runs: o.runs ?? 3,
            suite: o.suite ?? "whole",
          };
          const r = await jobs.run(qualifyJobKey(task.id), job);
          if (r.kind !== "qualify") throw new Error(`task ${task.id}: the queue returned a ${r.kind} result`);
          return r.report;
        },
      };
    },
  };
}
