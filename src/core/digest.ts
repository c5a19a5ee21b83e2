import { createHash } from "node:crypto";

/** Hex sha256 of text (UTF-8) or bytes: the digest of every file, patch and key the project records. */
export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
