import { basename } from "node:path";
import { formatProblem, InputError, inputError, zodProblems, type Problem } from "../core/errors.js";
import { readTextFile } from "../core/json-file.js";
import { handoffDatasetSchema, type HandoffDataset } from "./dataset-schema.js";
import { sha256 } from "../core/digest.js";

export interface LoadedHandoffDataset {
  file: string;
  /** sha256 of the file's bytes: submissions record it, so a score names the exact dataset. */
  sha256: string;
  dataset: HandoffDataset;
}

/** Parses dataset text; every problem becomes one `file: path: message` line of one InputError. */
export function parseHandoffDataset(file: string, text: string): LoadedHandoffDataset {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw inputError(file, "", `not valid JSON (${(e as Error).message})`);
  }
  const parsed = handoffDatasetSchema.safeParse(raw);
  if (!parsed.success) throw new InputError(uniqueProblems(zodProblems(file, parsed.error)));
  return { file, sha256: sha256(text), dataset: parsed.data };
}

/** Each problem once, in order of first appearance. */
export function uniqueProblems(list: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return list.filter((p) => {
    const line = formatProblem(p);
    if (seen.has(line)) return false;
    seen.add(line);
    return true;
  });
}

export function loadHandoffDataset(file: string): LoadedHandoffDataset {
  const text = readTextFile(file);
  return parseHandoffDataset(file, text);
}

export function datasetLabel(loaded: LoadedHandoffDataset): string {
  return `${basename(loaded.file)} (version ${loaded.dataset.version}, ${loaded.dataset.cases.length} cases)`;
}
