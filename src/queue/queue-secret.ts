import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { inputError } from "../core/errors.js";
import { wipeInitialEnvironment } from "./initial-env.js";
import type { QueueTarget } from "./queue-url.js";

/**
 * The secret that the coordinator and its workers share and nothing else sees: the environment
 * variable is read once and removed from the process (and its value overwritten in the environment
 * block /proc/<pid>/environ shows), so no agent a worker starts inherits or reads it.
 */
export const queueSecretEnv = "SWITCH_SWE_QUEUE_SECRET";

const minChars = 32;

/**
 * What the shared secret does: jobs are authenticated with it (a worker runs only what a coordinator
 * holding it issued, under the id it was issued with: signed-job.ts), results are authenticated with it
 * (the coordinator accepts only what a worker holding it wrote, for the key it was written under), and blobs (the dataset pack with its
 * held-out tests) are encrypted with it, so that whoever reaches Redis without it can neither read the
 * tests nor forge a result or a verdict.
 */
export class QueueSecret {
  private readonly macKey: Buffer;
  /** Jobs get a key of their own: no job MAC is ever a valid result MAC, nor the other way round. */
  private readonly jobKey: Buffer;
  private readonly blobKey: Buffer;
  /** Names the secret in Redis keys (runs with other secrets may share one Redis); reveals nothing of it. */
  readonly id: string;

  constructor(secret: string) {
    const ikm = Buffer.from(secret, "utf8");
    this.macKey = Buffer.from(hkdfSync("sha256", ikm, "switch-swe-queue", "result-mac/1", 32));
    this.jobKey = Buffer.from(hkdfSync("sha256", ikm, "switch-swe-queue", "job-mac/1", 32));
    this.blobKey = Buffer.from(hkdfSync("sha256", ikm, "switch-swe-queue", "blob-aes-256-gcm/1", 32));
    this.id = Buffer.from(hkdfSync("sha256", ikm, "switch-swe-queue", "key-id/1", 8)).toString("hex");
  }

  /** The payload with its MAC in front; `binding` ties it to one Redis key (run, session, attempt). */
  sign(payload: Buffer, binding: string): Buffer {
    return Buffer.concat([this.mac(payload, binding), payload]);
  }

  /** The payload of a signed value, or null when its MAC is not this secret's for this binding. */
  verify(signed: Buffer, binding: string): Buffer | null {
    if (signed.length < 32) return null;
    const payload = signed.subarray(32);
    return timingSafeEqual(signed.subarray(0, 32), this.mac(payload, binding)) ? payload : null;
  }

  /** HMAC-SHA256 of a job's canonical message (signed-job.ts builds it) with the job key. */
  jobMac(message: string): Buffer {
    return createHmac("sha256", this.jobKey).update(message, "utf8").digest();
  }

  /** AES-256-GCM with a fresh nonce; the blob's digest is authenticated with it. */
  encrypt(plain: Buffer, digest: string): Buffer {
    const iv = randomBytes(12);
    const c = createCipheriv("aes-256-gcm", this.blobKey, iv);
    c.setAAD(Buffer.from(digest));
    const body = Buffer.concat([c.update(plain), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), body]);
  }

  /** The plain blob, or null when it was not encrypted with this secret for this digest. */
  decrypt(sealed: Buffer, digest: string): Buffer | null {
    if (sealed.length < 28) return null;
    try {
      const d = createDecipheriv("aes-256-gcm", this.blobKey, sealed.subarray(0, 12));
      d.setAAD(Buffer.from(digest));
      d.setAuthTag(sealed.subarray(12, 28));
      return Buffer.concat([d.update(sealed.subarray(28)), d.final()]);
    } catch {
      return null;
    }
  }

  private mac(payload: Buffer, binding: string): Buffer {
    return createHmac("sha256", this.macKey).update(binding).update("\0").update(payload).digest();
  }
}

/**
 * The secret from the environment, which is then removed from it. Missing or short: bad input, with
 * how to make one (the same value must reach the coordinator and every worker).
 */
export function takeQueueSecret(env: NodeJS.ProcessEnv = process.env): QueueSecret {
  const value = env[queueSecretEnv];
  delete env[queueSecretEnv];
  if (env === process.env) wipeInitialEnvironment([queueSecretEnv]);
  if (value === undefined || value === "") {
    throw inputError(
      queueSecretEnv,
      "",
      `not set: the coordinator and its workers share a secret that authenticates results and encrypts the dataset in Redis; make one with \`openssl rand -hex 32\` and set it for \`run --queue\`, \`verify --queue\` and every \`worker\``,
    );
  }
  if (value.length < minChars)
    throw inputError(queueSecretEnv, "", `${value.length} characters; at least ${minChars} are needed (\`openssl rand -hex 32\` makes 64)`);
  return new QueueSecret(value);
}

/** A queue to run on: where it is, and the secret its coordinator and workers share. */
export interface SecuredQueue extends QueueTarget {
  secret: QueueSecret;
}
