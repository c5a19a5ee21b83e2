import { readFileSync } from "node:fs";
import {
  CONDITIONS,
  parseHandoffDataset,
  type LoadedHandoffDataset,
  type Submission,
  type SubmissionRecord,
} from "../../src/handoff/index.js";
import { FIXTURE_DATASET } from "../../src/handoff/scorer-fixtures.js";
import { blankRecord } from "../../src/handoff/record.js";
import { pilotPath } from "./cli-helpers.js";

export function fixtureDataset(): LoadedHandoffDataset {
  return parseHandoffDataset("fixture.json", JSON.stringify(FIXTURE_DATASET));
}

export function pilotDataset(): LoadedHandoffDataset {
  return parseHandoffDataset(pilotPath, readFileSync(pilotPath, "utf8"));
}

/** A record a person filled in completely, so scoring lists no record problems. */
export function filledRecord(loaded: LoadedHandoffDataset): SubmissionRecord {
  return {
    ...blankRecord(loaded),
    provider: "hand",
    model: "answer-key",
    model_version: "answer-key",
    date: "2025-01-01",
    host: "by hand",
  };
}

/** Every case and condition answered with the key itself. */
export function perfectSubmission(loaded: LoadedHandoffDataset): Submission {
  const answers: Submission["answers"] = {};
  for (const c of loaded.dataset.cases) answers[c.id] = Object.fromEntries(CONDITIONS.map((k) => [k, { ...c.answer }]));
  return { record: filledRecord(loaded), answers };
}

/** The dataset as plain JSON, to break in one place for validation tests. */
export function fixtureJson(): typeof FIXTURE_DATASET {
  // Through JSON, not structuredClone: the fixture shares one conditions object between cases.
  return JSON.parse(JSON.stringify(FIXTURE_DATASET)) as typeof FIXTURE_DATASET;
}
