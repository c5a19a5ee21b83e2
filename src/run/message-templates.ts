/**
 * The only texts an agent ever receives (documented verbatim in docs/run-format.md). A message names
 * the repository, the absolute path of the active workspace and the request, and nothing else: no task
 * labels, no roles, no future requests, no summaries of earlier work, no verifier feedback.
 */

export const finalizationText = "Finish the task in this workspace and leave it ready for evaluation. There are no further requirements.";

/** Where the agent writes its submission: this name at the root of the active (focus) workspace, in both conditions. */
export const submissionFile = "final.patch";

/**
 * Added to the finalization text under `run --submission agent` (the default for real agents): the agent
 * submits the task's final patch as a file, the artifact the verifier scores (src/run/submission.ts).
 */
export const submissionText = `Then write the final patch of this task, a unified diff of all your changes to this workspace against the revision it started from, to the file ${submissionFile} at the root of this workspace.`;

/** How the artifact of a session is taken: the agent's submitted patch, or the diff of the focus checkout. */
export type SubmissionMode = "agent" | "checkout";

export const continuationText =
  "Your previous turn on this request was stopped because it ran out of time. Continue working on the same request in this workspace.";

function header(repo: string, workspacePath: string): string {
  return `Repository: ${repo}\nWorkspace: ${workspacePath}\n\n`;
}

/** A stage request: the header, then the request text exactly as in the dataset. */
export function stageMessage(repo: string, workspacePath: string, requestText: string): string {
  return header(repo, workspacePath) + requestText;
}

/** The finalization request: the header, then the fixed finalization text (and, in agent mode, the submission sentence). */
export function finalizationMessage(repo: string, workspacePath: string, submission: SubmissionMode = "checkout"): string {
  return header(repo, workspacePath) + finalizationText + (submission === "agent" ? ` ${submissionText}` : "");
}

/** A continuation after a timeout: the header, then the fixed continuation text. */
export function continuationMessage(repo: string, workspacePath: string): string {
  return header(repo, workspacePath) + continuationText;
}
