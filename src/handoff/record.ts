import { packageVersion } from "../core/package-paths.js";
import { basename } from "node:path";
import type { LoadedHandoffDataset } from "./load-dataset.js";
import { PROMPT_VERSION } from "./prompt.js";
import type { ScoreProblem } from "./score.js";
import type { SubmissionRecord } from "./submission-schema.js";

export const TOOL = `switch-swe ${packageVersion}`;

export function datasetRef(loaded: LoadedHandoffDataset): SubmissionRecord["dataset"] {
  return { file: basename(loaded.file), version: loaded.dataset.version, sha256: loaded.sha256 };
}

/** A record with nothing known yet, for a submission someone fills in by hand. */
export function blankRecord(loaded: LoadedHandoffDataset): SubmissionRecord {
  return {
    provider: "",
    model: "",
    model_version: "",
    date: "",
    temperature: null,
    system_prompt: "",
    host: "",
    retry_policy: { retries: 0, retry_on: [], delay_ms: 0 },
    max_output_tokens: null,
    seed: null,
    dataset: datasetRef(loaded),
    prompt_version: PROMPT_VERSION,
    tool: TOOL,
  };
}

/** What a reader of a published score would distrust: an incomplete record, another dataset, another prompt. */
export function recordProblems(record: SubmissionRecord, loaded: LoadedHandoffDataset): ScoreProblem[] {
  const problems: ScoreProblem[] = [];
  for (const key of ["provider", "model", "date", "host"] as const) {
    if (record[key].trim() === "") problems.push({ path: `record.${key}`, message: "not set" });
  }
  if (record.dataset.sha256 !== loaded.sha256) {
    problems.push({
      path: "record.dataset.sha256",
      message: `made for another dataset file (${record.dataset.sha256.slice(0, 12)}, this one is ${loaded.sha256.slice(0, 12)})`,
    });
  }
  if (record.prompt_version !== PROMPT_VERSION) {
    problems.push({
      path: "record.prompt_version",
      message: `answers prompt version ${record.prompt_version}; this tool writes version ${PROMPT_VERSION}`,
    });
  }
  return problems;
}
