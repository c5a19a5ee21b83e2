import { existsSync, readFileSync } from "node:fs";
import { readJson } from "../core/json-file.js";
import type { LoadedTask } from "../dataset/load.js";
import { runFiles } from "../formats/run-layout.js";
import { sessionSummaryReadSchema } from "../formats/session-summary.js";
import { sealMatches } from "../formats/verdict-seal.js";
import { verdictSchema, type Verdict } from "../formats/verdict.js";
import { inspectArtifact, oversizedReason, refusedVerdict, type ArtifactInfo } from "./artifact-file.js";
import { unappliedVerdict } from "./unapplied-verdict.js";

// Where every verification of a session starts, local (`verify`, `run`) or on the queue's workers: which
// sessions a run verifies, and for each whether its verdict is kept, refused unread, or to be verified.

/** The sessions of a run whose session.json says finished (failed sessions have nothing to verify). */
export function finishedSessions(runDir: string, sessions: readonly string[]): string[] {
  return sessions.filter((s) => {
    const file = runFiles.summary(runDir, s);
    if (!existsSync(file)) return false;
    try {
      return (JSON.parse(readFileSync(file, "utf8")) as { status?: string }).status === "finished";
    } catch {
      return false;
    }
  });
}

/** One session's verification as prepared: its verdict kept, a refusal (verdict unsealed, the log's text), or the artifact to verify. */
export type PreparedVerification =
  | { kind: "kept"; verdict: Verdict }
  | { kind: "refused"; verdict: Verdict; log: string }
  | { kind: "verify"; artifact: ArtifactInfo; sha256: string | null };

export interface VerificationRequest {
  runDir: string;
  session: string;
  /** The session's focus task (undefined: not in the dataset, left to the verification to report). */
  task: LoadedTask | undefined;
  /** Artifacts larger than this are refused unread. */
  maxBytes: number;
  /** The run's verdict key, and the sessions whose verdict's seal did not match it (added to). */
  key: Buffer;
  forged: string[];
  /** Verify again even when a verdict for the same artifact exists. */
  force: boolean;
}

/**
 * One session's artifact inspected (hashed as a stream, never read whole when over the limit): an
 * existing verdict of the same bytes kept, a refusal decided here (no submission, an oversized
 * artifact), or the artifact to verify.
 */
export async function prepareVerification(r: VerificationRequest): Promise<PreparedVerification> {
  const info = await inspectArtifact(runFiles.artifact(r.runDir, r.session), r.maxBytes);
  const sha = info.kind === "none" ? null : info.sha256;
  const kept = r.force ? null : reusableVerdict(r.runDir, r.session, sha, r.key, r.forged);
  if (kept) return { kind: "kept", verdict: kept };
  const { task, session } = r;
  if (!task) return { kind: "verify", artifact: info, sha256: sha };
  const log = `sessions/${session}/verify.log`;
  const header = `verification of ${session} (task ${task.id}) at ${new Date().toISOString()}\nnot applied: `;
  const noSubmission = info.kind === "none" ? submissionFailure(r.runDir, session) : null;
  if (noSubmission !== null)
    return {
      kind: "refused",
      verdict: unappliedVerdict(task, { session, artifact_sha256: null, log }, noSubmission, 0),
      log: `${header}${noSubmission}\n`,
    };
  if (info.kind === "file" && info.oversized) {
    const reason = oversizedReason(info.bytes, r.maxBytes);
    return { kind: "refused", verdict: refusedVerdict(task, session, info.sha256, reason, log), log: `${header}${reason}\n` };
  }
  return { kind: "verify", artifact: info, sha256: sha };
}

/** An existing verdict that may be kept: sealed by this run's key, same artifact bytes, not an infrastructure fault, not refused for its size. */
function reusableVerdict(runDir: string, session: string, artifactSha256: string | null, key: Buffer, forged: string[]): Verdict | null {
  const file = runFiles.verdict(runDir, session);
  if (!existsSync(file)) return null;
  let parsed;
  try {
    parsed = verdictSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return null;
  }
  if (!parsed.success) return null;
  const v = parsed.data;
  if (!sealMatches(v, key)) {
    forged.push(session);
    process.stderr.write(`${file}: seal: does not match the run's key (written or edited outside the verifier): verifying again\n`);
    return null;
  }
  // A size refusal is cheap to redo, and the limit may have changed since.
  if (v.infra_fault || v.apply_error?.includes("(--max-artifact-mb)")) return null;
  return v.artifact_sha256 === artifactSha256 ? v : null;
}

/**
 * Why a session under `run --submission agent` has no artifact: the agent submitted no file, or one that is
 * not a patch (session.json's `submission`); null when session.json says nothing of it.
 */
function submissionFailure(runDir: string, session: string): string | null {
  try {
    const s = sessionSummaryReadSchema.safeParse(readJson(runFiles.summary(runDir, session))).data?.submission;
    if (s?.mode !== "agent" || s.status === undefined || s.status === "submitted") return null;
    return `${s.status === "missing" ? "no submission" : "the submission is not a patch"}: ${s.detail ?? s.status}`;
  } catch {
    return null;
  }
}
