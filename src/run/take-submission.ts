import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { sha256 } from "../core/digest.js";
import { runFiles } from "../formats/run-layout.js";
import type { PatchInfo, SessionSummary } from "../formats/session-summary.js";
import { splitPatch } from "../core/patch-blocks.js";
import { readSubmission } from "./submission.js";

export interface TakenSubmission {
  /** artifact.patch (the normalized submission), or null when there was none to take. */
  artifact: PatchInfo | null;
  record: NonNullable<SessionSummary["submission"]>;
}

function writeAtomic(file: string, data: string | Buffer): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/**
 * `--submission agent`, after the last request: the agent's submission becomes the session's artifact.patch.
 * A file that is not a patch is kept as submission.raw for analysis (never as the artifact); no file at all
 * leaves no artifact. Either way the verdict is unresolved and the report counts a submission failure.
 */
export function takeSubmission(focusWorkspace: string, runDir: string, session: string): TakenSubmission {
  const sessionDir = runFiles.sessionDir(runDir, session);
  const artifactFile = runFiles.artifact(runDir, session);
  // A stale artifact of an earlier attempt must never stand in for a missing submission.
  rmSync(artifactFile, { force: true });
  const r = readSubmission(focusWorkspace);
  if (r.status !== "submitted") {
    if (r.raw) writeAtomic(runFiles.submissionRaw(runDir, session), r.raw);
    return { artifact: null, record: { mode: "agent", status: r.status, detail: r.detail, normalized: r.normalized } };
  }
  writeAtomic(artifactFile, r.patch);
  const files = [...new Set(splitPatch(r.patch).flatMap((b) => b.to ?? b.from ?? []))].sort();
  return {
    artifact: { path: relative(sessionDir, artifactFile), bytes: Buffer.byteLength(r.patch), sha256: sha256(r.patch), files },
    record: { mode: "agent", status: "submitted", normalized: r.normalized },
  };
}
