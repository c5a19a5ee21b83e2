import type { LoadedTask } from "../dataset/load.js";
import { requiredTests } from "../testbed/task-testbed.js";
import { verdictSchema, type TestStatus, type Verdict } from "../formats/verdict.js";

/**
 * The verdict of an artifact that was never applied (none was left, or it was refused before any
 * checkout): every required test missing, unresolved; not an infrastructure fault, since the artifact
 * (or its absence) is what the agent left.
 */
export function unappliedVerdict(
  task: LoadedTask,
  of: Pick<Verdict, "session" | "artifact_sha256" | "log">,
  reason: string,
  durationMs: number,
): Verdict {
  const tests = Object.fromEntries(requiredTests(task).map((id) => [id, "missing" as TestStatus]));
  const count = (ids: readonly string[]) => ({ passed: 0, total: new Set(ids).size });
  return verdictSchema.parse({
    format: "switch-swe.verdict/1",
    session: of.session,
    task: task.id,
    artifact_sha256: of.artifact_sha256,
    applied: false,
    apply_method: null,
    apply_error: reason,
    dropped_files: [],
    tests,
    fail_to_pass: count(task.verifier.fail_to_pass),
    pass_to_pass: count(task.verifier.pass_to_pass),
    resolved: false,
    infra_fault: false,
    timed_out: false,
    exit_code: null,
    result_source: "none",
    setup_cached: false,
    duration_ms: durationMs,
    attempts: 1,
    log: of.log,
    verified_at: new Date().toISOString(),
  });
}
