import { join } from "node:path";

/**
 * The run directory is the single source of truth of a run (docs/run-format.md):
 *
 *   RUN_DIR/run.json                         configuration (dataset, sessions file + sha256, agent, options, seed)
 *   RUN_DIR/ledger.sqlite                    attempts per session (WAL): what started, what finished
 *   RUN_DIR/sessions/<session>/trajectory.jsonl
 *   RUN_DIR/sessions/<session>/session.json  summary of the finished attempt (status, finalized, usage)
 *   RUN_DIR/sessions/<session>/artifact.patch          focus workspace vs base (the scored artifact)
 *   RUN_DIR/sessions/<session>/workspaces/wNN.patch    the other four workspaces, for analysis only
 *   RUN_DIR/sessions/<session>/checkout.patch          --submission agent: the focus workspace vs base (analysis only;
 *                                                      artifact.patch is then the agent's normalized submission)
 *   RUN_DIR/sessions/<session>/submission.raw          --submission agent: the file as the agent left it, when it was not a patch
 *   RUN_DIR/sessions/<session>/verdict.json  written by `verify`
 *   RUN_DIR/sessions/<session>/verify.log    test output of the verification
 *   RUN_DIR/work/<sha12>/wNN                 live checkouts while a session runs (removed when it ends); the
 *                                            directory name is a hash so the path shown to the agent names no
 *                                            task, role or condition (see session-dir.ts; the ledger records it)
 *
 * A session id is `<focus task id>.<condition>`.
 */
export const runFiles = {
  config: (runDir: string) => join(runDir, "run.json"),
  ledger: (runDir: string) => join(runDir, "ledger.sqlite"),
  sessionDir: (runDir: string, session: string) => join(runDir, "sessions", session),
  trajectory: (runDir: string, session: string) => join(runDir, "sessions", session, "trajectory.jsonl"),
  summary: (runDir: string, session: string) => join(runDir, "sessions", session, "session.json"),
  artifact: (runDir: string, session: string) => join(runDir, "sessions", session, "artifact.patch"),
  workspacePatch: (runDir: string, session: string, workspace: string) =>
    join(runDir, "sessions", session, "workspaces", `${workspace}.patch`),
  checkoutPatch: (runDir: string, session: string) => join(runDir, "sessions", session, "checkout.patch"),
  submissionRaw: (runDir: string, session: string) => join(runDir, "sessions", session, "submission.raw"),
  verdict: (runDir: string, session: string) => join(runDir, "sessions", session, "verdict.json"),
  verifyLog: (runDir: string, session: string) => join(runDir, "sessions", session, "verify.log"),
};
