/**
 * The only texts an agent ever receives (documented verbatim in docs/run-format.md). A message names
 * the repository, the absolute path of the active workspace and the request, and nothing else: no task
 * labels, no roles, no future requests, no summaries of earlier work, no verifier feedback.
 */

export const finalizationText =
  "Finish the task in this workspace and leave it ready for evaluation. There are no further requirements.";

export const continuationText =
  "Your previous turn on this request was stopped because it ran out of time. Continue working on the same request in this workspace.";

function header(repo: string, workspacePath: string): string {
  return `Repository: ${repo}\nWorkspace: ${workspacePath}\n\n`;
}

/** A stage request: the header, then the request text exactly as in the dataset. */
export function stageMessage(repo: string, workspacePath: string, requestText: string): string {
  return header(repo, workspacePath) + requestText;
}

/** The finalization request: the header, then the fixed finalization text. */
export function finalizationMessage(repo: string, workspacePath: string): string {
  return header(repo, workspacePath) + finalizationText;
}

/** A continuation after a timeout: the header, then the fixed continuation text. */
export function continuationMessage(repo: string, workspacePath: string): string {
  return header(repo, workspacePath) + continuationText;
}
