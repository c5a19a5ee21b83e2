import type { JobsOptions, Queue } from "bullmq";
import type { QueueSecret } from "./queue-secret.js";
import { signJob } from "./signed-job.js";

/**
 * Adds a job signed for its queue, name and id (the only way a coordinator adds one): a worker runs
 * nothing else. The id is chosen here, never by BullMQ, since it is part of what is signed.
 */
export async function issueJob(
  queue: Queue,
  secret: QueueSecret,
  name: string,
  data: object,
  opts: JobsOptions & { jobId: string },
): Promise<void> {
  await queue.add(name, signJob(secret, queue.name, name, opts.jobId, data), opts);
}
