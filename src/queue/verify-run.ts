import { assertRunDir } from "../formats/run-dir-check.js";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { InputError } from "../core/errors.js";
import type { Verdict } from "../formats/verdict.js";
import { runDataset, sessionDirs } from "../verify/run-verify.js";
import { connectChecked } from "./connect.js";
import { prepareShipment, ship } from "./dataset-shipment.js";
import { readQueueRun } from "./queue-run-file.js";
import type { SecuredQueue } from "./queue-secret.js";
import { verifyOnQueue } from "./verify-coordinator.js";
import type { ConfineBackend } from "../confine/backend.js";
import type { Limits } from "../confine/limits.js";

export interface QueueVerifyOptions {
  target: SecuredQueue;
  sessions?: readonly string[];
  force?: boolean;
  /** `--max-artifact-mb`: larger artifacts are refused unread, as in a local verify. */
  maxArtifactMb?: number;
  /** `--sandbox` and `--limits` of each test run, which the workers apply as a local verify would. */
  confine: ConfineBackend;
  limits: Limits;
  onVerdict: (e: { session: string; verdict: Verdict; reused: boolean; done: number; total: number }) => void;
}

/** `verify RUN_DIR --queue URL`: the run's verifications as jobs for the queue's workers. */
export async function verifyRunOnQueue(runDir: string, o: QueueVerifyOptions) {
  const root = resolve(runDir);
  assertRunDir(root);
  const dataset = runDataset(root);
  const all = sessionDirs(root);
  const chosen = o.sessions && o.sessions.length > 0 ? [...new Set(o.sessions)] : all;
  const unknown = chosen.filter((s) => !all.includes(s));
  if (unknown.length > 0)
    throw new InputError(unknown.map((s) => ({ file: join(root, "sessions"), path: s, message: "no such session in the run" })));
  const redis = await connectChecked(o.target);
  try {
    const shipment = await prepareShipment(dataset);
    await ship(redis, shipment, o.target.secret);
    return await verifyOnQueue({
      runDir: root,
      dataset,
      ...(o.maxArtifactMb !== undefined ? { maxArtifactMb: o.maxArtifactMb } : {}),
      sessions: chosen,
      confine: o.confine,
      limits: o.limits,
      redis,
      target: o.target,
      runId: readQueueRun(root)?.run_id ?? randomBytes(8).toString("hex"),
      shipment,
      ...(o.force ? { force: true } : {}),
      onVerdict: o.onVerdict,
    });
  } finally {
    redis.disconnect();
  }
}
