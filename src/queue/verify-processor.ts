import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Job } from "bullmq";
import { taskById } from "../dataset/load.js";
import { verifyArtifact } from "../verify/verify-artifact.js";
import { parseLimits } from "../confine/limits.js";
import { confineBackend } from "../confine/registry.js";
import { verifyJobSchema, type VerifyJob } from "./job-schema.js";
import { keys, resultTtlS, verifyQueue } from "./keys.js";
import { encodeResult, type VerifyResult } from "./result-schema.js";
import type { JobHandler, ProcessorContext } from "./job-handler.js";
import { workerDataset } from "./worker-dataset.js";

/**
 * Verification jobs: the same verifyArtifact as `verify`, next to this worker's warm environment cache;
 * the verdict and its log are stored once under their own key.
 */
export const verifyJobs: JobHandler<VerifyJob> = {
  queue: verifyQueue,
  what: "verification",
  schema: verifyJobSchema,
  handle: processVerifyJob,
};

async function processVerifyJob(raw: Job, job: VerifyJob, _token: string | undefined, c: ProcessorContext): Promise<string> {
  const key = keys.verdict(job.run_id, job.session, job.artifact_sha256);
  const before = await c.redis.getBuffer(key);
  if (before !== null && c.secret.verify(before, key) !== null) return "already done";
  const dataset = await workerDataset(c.redis, c.secret, job.dataset);
  const task = taskById(dataset).get(job.task);
  if (!task) throw new Error(`task ${job.task} is not in dataset ${job.dataset.name} ${job.dataset.version}`);
  const workRoot = mkdtempSync(join(c.workRoot, "verify-"));
  try {
    const logFile = join(workRoot, "verify.log");
    const verdict = await verifyArtifact({
      dataset,
      task,
      artifactText: job.artifact_b64 === null ? null : Buffer.from(job.artifact_b64, "base64").toString("utf8"),
      workRoot: join(workRoot, "work"),
      session: job.session,
      logFile,
      logLabel: `sessions/${job.session}/verify.log`,
      confine: confineBackend(job.sandbox, { file: "verification job", path: "sandbox" }),
      limits: parseLimits(job.limits, "verification job: limits"),
    });
    if (c.lockLost.has(String(raw.id))) return "lock lost";
    const result: VerifyResult = {
      format: "switch-swe.queue-verdict/1",
      session: job.session,
      worker: c.worker,
      verdict,
      log_b64: readFileSync(logFile).toString("base64"),
    };
    // Not NX: a value someone forged under this key before us (it does not verify) must give way.
    await c.redis.set(key, encodeResult(result, c.secret, key), "EX", resultTtlS);
    c.log(`verified ${job.session}: ${verdict.infra_fault ? "infrastructure fault" : verdict.resolved ? "resolved" : "unresolved"}`);
    return "verified";
  } finally {
    c.lockLost.delete(String(raw.id));
    rmSync(workRoot, { recursive: true, force: true, maxRetries: 3 });
  }
}
