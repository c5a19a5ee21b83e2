import { parseHandoffDataset, type LoadedHandoffDataset } from "./load-dataset.js";
import { CONDITIONS, DEFAULT_RUBRIC as FIXTURE_RUBRIC, FIELDS, type Condition } from "./fields.js";
import { InputError } from "../core/errors.js";
import { scoreSubmission, type ScoreResult } from "./score.js";
import { FIXTURE_DATASET, PARTIAL_F1_MEMORY, PARTIAL_F1_TRANSCRIPT } from "./scorer-fixtures.js";
import type { Submission } from "./submission-schema.js";
import { makeTemplate } from "./template.js";
import type { HandoffDataset } from "./dataset-schema.js";

export interface ScorerCheck {
  name: string;
  ok: boolean;
  detail: string;
}

const close = (a: number, b: number): boolean => Math.abs(a - b) < 1e-9;

function fixture(): LoadedHandoffDataset {
  return parseHandoffDataset("built-in fixture", JSON.stringify(FIXTURE_DATASET));
}

function perfectAnswers(loaded: LoadedHandoffDataset): Submission["answers"] {
  const answers: Submission["answers"] = {};
  for (const c of loaded.dataset.cases) answers[c.id] = Object.fromEntries(CONDITIONS.map((k) => [k, { ...c.answer }]));
  return answers;
}

function problemsAt(result: ScoreResult, path: string): string[] {
  return result.problems.filter((p) => p.path === path).map((p) => p.message);
}

function rejects(mutate: (d: typeof FIXTURE_DATASET) => void, expected: string): { ok: boolean; detail: string } {
  const copy = JSON.parse(JSON.stringify(FIXTURE_DATASET)) as typeof FIXTURE_DATASET;
  mutate(copy);
  try {
    parseHandoffDataset("fixture", JSON.stringify(copy));
    return { ok: false, detail: "accepted" };
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    const ok = e.message.includes(expected);
    return { ok, detail: ok ? expected : e.message };
  }
}

/** The scorer's self-test: each check states what it proves and what it saw. */
export function runScorerChecks(): ScorerCheck[] {
  const checks: ScorerCheck[] = [];
  const check = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
  const loaded = fixture();
  const dataset = loaded.dataset;

  const perfect = scoreSubmission(dataset, { answers: perfectAnswers(loaded) });
  check(
    "a perfect submission scores 100",
    close(perfect.overall, 100) && perfect.problems.length === 0,
    `overall ${perfect.overall}, ${perfect.problems.length} problems`,
  );

  const empty = scoreSubmission(dataset, { answers: {} });
  check(
    "an empty submission scores 0",
    empty.overall === 0 && empty.problems.length === dataset.cases.length,
    `overall ${empty.overall}, ${empty.problems.length} problems`,
  );

  const template = scoreSubmission(dataset, makeTemplate(loaded));
  check("the template (every field null) scores 0", template.overall === 0, `overall ${template.overall}`);

  partialAnswerChecks(dataset, check);

  const invalid = scoreSubmission(dataset, {
    answers: perfectAnswers(loaded),
    responses: { f2: { handoff: { outcome: "invalid-json", detail: "Unexpected token", attempts: 1 } } },
  });
  check(
    "a response that is not valid JSON scores 0 and is listed",
    invalid.cases.f2?.handoff.score === 0 && problemsAt(invalid, "responses.f2.handoff").length === 1 && close(invalid.overall, 500 / 6),
    `overall ${invalid.overall}`,
  );

  const reordered = perfectAnswers(loaded);
  for (const byCondition of Object.values(reordered)) {
    for (const answer of Object.values(byCondition)) {
      for (const f of FIELDS) {
        const v = answer?.[f];
        if (Array.isArray(v)) answer![f] = [...v].reverse();
      }
    }
  }
  check("the order of ids does not matter", close(scoreSubmission(dataset, { answers: reordered }).overall, 100), "reversed every set");

  const rubric = { ...FIXTURE_RUBRIC, open_questions: 5 };
  const badRubric = rejects((d) => Object.assign(d, { rubric }), "rubric: points add up to 95, not 100");
  check("validation rejects a rubric that does not sum to 100", badRubric.ok, badRubric.detail);
  const badId = rejects((d) => (d.cases[0]!.answer.objective = "o9"), 'cases[0].answer.objective: "o9" is not a candidate id of objective');
  check("validation rejects an answer id that is not a candidate", badId.ok, badId.detail);
  return checks;
}

/** Partial answers of one case: field scores, means over cases and conditions, and the problems listed. */
function partialAnswerChecks(dataset: HandoffDataset, check: (name: string, ok: boolean, detail: string) => void): void {
  const partial = scoreSubmission(dataset, {
    answers: { f1: { transcript: PARTIAL_F1_TRANSCRIPT.answer, memory: PARTIAL_F1_MEMORY.answer as never } },
  });
  for (const [condition, expected] of [
    ["transcript", PARTIAL_F1_TRANSCRIPT],
    ["memory", PARTIAL_F1_MEMORY],
  ] as const) {
    const got = partial.cases.f1?.[condition as Condition];
    const fieldsOk = got !== undefined && FIELDS.every((f) => close(got.fields[f], expected.fields[f]));
    check(
      `partial answers (f1, ${condition}) score ${expected.score.toFixed(4)} field by field`,
      fieldsOk && close(got.score, expected.score),
      `got ${got?.score}`,
    );
  }
  const expectedOverall = (PARTIAL_F1_TRANSCRIPT.score + PARTIAL_F1_MEMORY.score) / 6;
  check(
    "overall is the mean over every case and condition",
    close(partial.overall, expectedOverall),
    `got ${partial.overall}, expected ${expectedOverall}`,
  );
  check(
    "condition scores are means over cases",
    close(partial.conditions.transcript, 27.5) && partial.conditions.handoff === 0,
    `transcript ${partial.conditions.transcript}`,
  );
  check(
    "a list for a single-value field is listed",
    problemsAt(partial, "answers.f1.memory.objective").length === 1,
    problemsAt(partial, "answers.f1.memory.objective").join("; "),
  );
  check(
    "an id that is not a candidate is listed",
    problemsAt(partial, "answers.f1.memory.decisions[1]").some((m) => m.includes('"zz"')),
    problemsAt(partial, "answers.f1.memory.decisions[1]").join("; "),
  );
  check(
    "a missing answer is listed",
    problemsAt(partial, "answers.f1.memory.owner").includes("no answer") && problemsAt(partial, "answers.f1.handoff").includes("no answer"),
    "owner and f1.handoff",
  );
}
