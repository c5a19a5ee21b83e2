import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../core/json-file.js";
import type { Verdict } from "./verdict.js";

/**
 * Verdict seals. `verify` signs every verdict with an HMAC-SHA256 keyed per run; the key lives in
 * `RUN_DIR/verdict.key` (mode 0600), outside every session directory and out of every sandbox's
 * reach. `verify` (before keeping a verdict) and `report` check the seal: a verdict whose seal does
 * not match was written or edited by someone else, and counts as no verdict.
 */

export const verdictKeyFile = (runDir: string) => join(runDir, "verdict.key");

/** The run's key, or null when the run has none (verified by a version that did not seal). */
export function readVerdictKey(runDir: string): Buffer | null {
  const file = verdictKeyFile(runDir);
  if (!existsSync(file)) return null;
  const hex = readFileSync(file, "utf8").trim();
  return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, "hex") : null;
}

/** The run's key, created on first use. */
export function verdictKey(runDir: string): Buffer {
  const key = readVerdictKey(runDir);
  if (key) return key;
  const fresh = randomBytes(32);
  writeFileAtomic(verdictKeyFile(runDir), `${fresh.toString("hex")}\n`);
  chmodSync(verdictKeyFile(runDir), 0o600);
  return fresh;
}

/** JSON with keys sorted at every level: the bytes the seal covers. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function mac(verdict: Verdict, key: Buffer): string {
  const { seal: _seal, ...rest } = verdict;
  return createHmac("sha256", key).update(canonical(rest)).digest("hex");
}

export function sealVerdict(verdict: Verdict, key: Buffer): Verdict {
  return { ...verdict, seal: mac(verdict, key) };
}

/** Whether the verdict carries a seal made with this key over exactly its content. */
export function sealMatches(verdict: Verdict, key: Buffer): boolean {
  if (verdict.seal === undefined || !/^[0-9a-f]{64}$/.test(verdict.seal)) return false;
  return timingSafeEqual(Buffer.from(verdict.seal, "hex"), Buffer.from(mac(verdict, key), "hex"));
}
