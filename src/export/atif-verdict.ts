import { existsSync } from "node:fs";
import { readJson } from "../core/json-file.js";
import { runFiles } from "../formats/run-layout.js";
import { verdictSchema } from "../formats/verdict.js";

/** What `extra.switch_swe.verdict` of an exported session says: the scored outcome, without the test log. */
export interface AtifVerdict {
  /** resolved, tests failed, did not apply, infra fault, or suspicious (resolved, but counted unresolved by the report). */
  outcome: "resolved" | "tests failed" | "did not apply" | "infra fault" | "suspicious";
  resolved: boolean;
  applied: boolean;
  infra_fault: boolean;
  fail_to_pass: { passed: number; total: number };
  pass_to_pass: { passed: number; total: number };
  verified_at: string;
  /** The verdict's seal (HMAC-SHA256 keyed per run), so a reader with the run can check the verdict is the run's. */
  seal: string | null;
}

/** The session's verdict as exported; null when it was never verified or its verdict.json does not parse. */
export function exportedVerdict(runDir: string, session: string): AtifVerdict | null {
  const file = runFiles.verdict(runDir, session);
  if (!existsSync(file)) return null;
  const parsed = verdictSchema.safeParse(readJson(file));
  if (!parsed.success) return null;
  const v = parsed.data;
  const outcome = v.infra_fault
    ? "infra fault"
    : !v.applied
      ? "did not apply"
      : v.resolved
        ? v.suspicious
          ? "suspicious"
          : "resolved"
        : "tests failed";
  return {
    outcome,
    resolved: v.resolved,
    applied: v.applied,
    infra_fault: v.infra_fault,
    fail_to_pass: v.fail_to_pass,
    pass_to_pass: v.pass_to_pass,
    verified_at: v.verified_at,
    seal: v.seal ?? null,
  };
}
