/** The handoff continuity benchmark: what the CLI (and other stages) may use. */
export { CONDITIONS, DEFAULT_RUBRIC, FIELDS, type Field } from "./fields.js";
export { handoffDatasetSchema, type HandoffDataset } from "./dataset-schema.js";
export { datasetWarnings } from "./dataset-warnings.js";
export { datasetLabel, loadHandoffDataset, parseHandoffDataset, type LoadedHandoffDataset } from "./load-dataset.js";
export { submissionSchema, RETRY_ON, type RetryOn, type Submission, type SubmissionRecord } from "./submission-schema.js";
export { scoreSubmission, scoreField, setF1 } from "./score.js";
export { scoreJson, scoreText } from "./score-report.js";
export { recordProblems } from "./record.js";
export { PROMPT_VERSION, renderPrompt } from "./prompt.js";
export { buildPromptSet, writePromptSet } from "./write-prompts.js";
export { makeTemplate } from "./template.js";
export { parseModelResponse } from "./parse-response.js";
// The AI SDK client is not re-exported: import ./model-client.js where a model is called, so other commands start fast.
export { rawLogPath, runHandoff } from "./run.js";
export { runScorerChecks } from "./validate-scorer.js";
