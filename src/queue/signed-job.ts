import { timingSafeEqual } from "node:crypto";
import { queueSecretEnv, type QueueSecret } from "./queue-secret.js";

/**
 * Jobs are signed by the coordinator and checked by the worker before anything else: whoever can write
 * to the queue's Redis (an agent under `--network on`, another tenant) could otherwise add or alter a
 * job (another command, `sandbox: none`) and have a worker run it as root. The MAC sits in the job's
 * data under this field, next to the fields the job schemas know; the worker takes it out before parsing.
 */
export const jobMacField = "mac";

const format = "switch-swe.queue-job/1";

/**
 * JSON with object keys sorted at every level, `undefined` members left out as JSON.stringify leaves
 * them: the same bytes for a job however its keys were ordered or its data round-tripped through Redis.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined || typeof v === "function" ? "null" : canonicalJson(v))).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    const members = Object.keys(o)
      .filter((k) => o[k] !== undefined && typeof o[k] !== "function")
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** What is signed: the queue, the job's name and id, and its whole data (without the MAC). */
export function jobMessage(queue: string, name: string, id: string, data: unknown): string {
  return canonicalJson({ format, queue, name, id, data });
}

/**
 * The job's data as it will be stored, with its MAC for this queue, name and id. The data is
 * round-tripped through JSON first, so what is signed is exactly what the worker will read.
 */
export function signJob<T extends object>(
  secret: QueueSecret,
  queue: string,
  name: string,
  id: string,
  data: T,
): T & { [jobMacField]: string } {
  const stored = JSON.parse(JSON.stringify(data)) as T;
  if (jobMacField in stored) throw new Error(`a job's data must not have a field "${jobMacField}" of its own`);
  return { ...stored, [jobMacField]: secret.jobMac(jobMessage(queue, name, id, stored)).toString("hex") };
}

export type Authenticated = { ok: true; data: Record<string, unknown> } | { ok: false; why: string };

/**
 * The job's data without its MAC when the MAC is this secret's for this queue, name, id and data;
 * otherwise why not (unsigned, malformed, or not matching: altered, replayed under another id or queue,
 * or signed with another secret).
 */
export function authenticateJob(
  secret: QueueSecret,
  queue: string,
  job: { id?: string | undefined; name: string; data: unknown },
): Authenticated {
  if (job.data === null || typeof job.data !== "object" || Array.isArray(job.data)) return { ok: false, why: "its data is not an object" };
  const { [jobMacField]: mac, ...data } = job.data as Record<string, unknown>;
  if (mac === undefined)
    return {
      ok: false,
      why: `unsigned: it carries no ${jobMacField} (a coordinator holding this queue's ${queueSecretEnv} signs every job it issues)`,
    };
  if (typeof mac !== "string" || !/^[0-9a-f]{64}$/.test(mac)) return { ok: false, why: `its ${jobMacField} is not 64 hex digits` };
  if (job.id === undefined) return { ok: false, why: "it has no id" };
  const want = secret.jobMac(jobMessage(queue, job.name, job.id, data));
  if (!timingSafeEqual(Buffer.from(mac, "hex"), want)) {
    return {
      ok: false,
      why: `its ${jobMacField} does not match its data, name, id and queue (altered after signing, replayed under another id, or signed with another ${queueSecretEnv})`,
    };
  }
  return { ok: true, data };
}
