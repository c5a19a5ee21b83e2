import { describe, expect, it } from "vitest";
import { FIELDS, recordProblems, runScorerChecks, scoreField, scoreSubmission, setF1, makeTemplate } from "../../src/handoff/index.js";
import { PARTIAL_F1_MEMORY, PARTIAL_F1_TRANSCRIPT } from "../../src/handoff/scorer-fixtures.js";
import { fixtureDataset, filledRecord, perfectSubmission, pilotDataset } from "./fixtures.js";

const ids = (...xs: string[]) => new Set(xs);

describe("setF1", () => {
  it("is 1 for an empty answer against an empty key, 0 against a non-empty one", () => {
    expect(setF1([], [])).toBe(1);
    expect(setF1([], ["a"])).toBe(0);
    expect(setF1(["a"], [])).toBe(0);
  });
  it("is the harmonic mean of precision and recall over distinct ids", () => {
    expect(setF1(["a", "b"], ["a", "c"])).toBe(0.5);
    expect(setF1(["a", "a", "b"], ["a", "b"])).toBe(1);
    expect(setF1(["a"], ["a", "b"])).toBeCloseTo(2 / 3, 12);
  });
});

describe("scoreField", () => {
  it("scores single-value fields by exact match", () => {
    expect(scoreField("objective", ids("o1", "o2"), "o1", "o1")).toEqual({ fraction: 1, problems: [] });
    expect(scoreField("objective", ids("o1", "o2"), "o1", "o2")).toEqual({ fraction: 0, problems: [] });
  });
  it("zeroes and explains a list for a single-value field, a non-candidate and a missing answer", () => {
    expect(scoreField("owner", ids("w1"), "w1", ["w1"]).problems[0]?.message).toBe("owner takes one candidate id, not a list");
    expect(scoreField("owner", ids("w1"), "w1", "w7").problems[0]?.message).toBe('"w7" is not a candidate id of owner');
    expect(scoreField("owner", ids("w1"), "w1", null).problems[0]?.message).toBe("no answer");
    expect(scoreField("decisions", ids("d1"), ["d1"], undefined).fraction).toBe(0);
  });
  it("zeroes a set field when any id is not a candidate, naming each by position", () => {
    const r = scoreField("decisions", ids("d1", "d2"), ["d1"], ["d1", "x", "y"]);
    expect(r.fraction).toBe(0);
    expect(r.problems).toEqual([
      { suffix: "[1]", message: '"x" is not a candidate id of decisions' },
      { suffix: "[2]", message: '"y" is not a candidate id of decisions' },
    ]);
  });
  it("zeroes a string given for a set field", () => {
    expect(scoreField("evidence", ids("e1"), ["e1"], "e1")).toEqual({
      fraction: 0,
      problems: [{ suffix: "", message: "evidence takes a list of candidate ids" }],
    });
  });
});

describe("scoreSubmission", () => {
  const loaded = fixtureDataset();
  const { dataset } = loaded;

  it("gives a perfect submission 100 everywhere and lists nothing", () => {
    const r = scoreSubmission(dataset, perfectSubmission(loaded));
    expect(r.overall).toBe(100);
    expect(r.conditions).toEqual({ transcript: 100, memory: 100, handoff: 100 });
    expect(r.problems).toEqual([]);
  });

  it("gives an empty submission and the template 0, one problem per missing case or condition", () => {
    const empty = scoreSubmission(dataset, { answers: {} });
    expect(empty.overall).toBe(0);
    expect(empty.problems).toEqual([
      { path: "answers.f1", message: "no answers for this case" },
      { path: "answers.f2", message: "no answers for this case" },
    ]);
    const template = scoreSubmission(dataset, makeTemplate(loaded));
    expect(template.overall).toBe(0);
    expect(template.problems).toHaveLength(6);
    expect(template.problems[0]).toEqual({ path: "answers.f1.transcript", message: "no answer" });
  });

  it("gives the hand-computed partial scores, field by field", () => {
    const r = scoreSubmission(dataset, {
      answers: { f1: { transcript: PARTIAL_F1_TRANSCRIPT.answer, memory: PARTIAL_F1_MEMORY.answer as never } },
    });
    for (const f of FIELDS) {
      expect(r.cases.f1?.transcript.fields[f]).toBeCloseTo(PARTIAL_F1_TRANSCRIPT.fields[f], 12);
      expect(r.cases.f1?.memory.fields[f]).toBeCloseTo(PARTIAL_F1_MEMORY.fields[f], 12);
    }
    expect(r.cases.f1?.transcript.score).toBe(55);
    expect(r.cases.f1?.memory.score).toBeCloseTo(125 / 3, 12);
    expect(r.conditions.transcript).toBe(27.5);
    expect(r.overall).toBeCloseTo((55 + 125 / 3) / 6, 12);
    expect(r.problems).toEqual([
      { path: "answers.f1.memory.objective", message: "objective takes one candidate id, not a list" },
      { path: "answers.f1.memory.decisions[1]", message: '"zz" is not a candidate id of decisions' },
      { path: "answers.f1.memory.evidence", message: "evidence takes a list of candidate ids" },
      { path: "answers.f1.memory.owner", message: "no answer" },
      { path: "answers.f1.handoff", message: "no answer" },
      { path: "answers.f2", message: "no answers for this case" },
    ]);
  });

  it("scores an invalid JSON response 0 and lists it once, whatever the answers say", () => {
    const sub = perfectSubmission(loaded);
    const r = scoreSubmission(dataset, {
      ...sub,
      responses: { f2: { memory: { outcome: "invalid-json", detail: "Unexpected token S", attempts: 1 } } },
    });
    expect(r.cases.f2?.memory.score).toBe(0);
    expect(r.overall).toBeCloseTo(500 / 6, 12);
    expect(r.problems).toEqual([
      { path: "responses.f2.memory", message: "the response is not valid JSON (Unexpected token S); every field scores 0" },
    ]);
  });

  it("lists notes a run kept about a response, and answers for cases the dataset lacks", () => {
    const sub = perfectSubmission(loaded);
    sub.answers.ghost = {};
    const r = scoreSubmission(dataset, {
      ...sub,
      responses: { f1: { handoff: { outcome: "answered", problems: ['unknown key "why" in the response (ignored)'], attempts: 1 } } },
    });
    expect(r.overall).toBe(100);
    expect(r.problems).toEqual([
      { path: "responses.f1.handoff", message: 'unknown key "why" in the response (ignored)' },
      { path: "answers.ghost", message: "not a case of this dataset (ignored)" },
    ]);
  });

  it("gives the answer key itself 100 on the pilot dataset", () => {
    const pilot = pilotDataset();
    expect(scoreSubmission(pilot.dataset, perfectSubmission(pilot)).overall).toBe(100);
  });
});

describe("recordProblems", () => {
  const loaded = fixtureDataset();
  it("is empty for a complete record of this dataset", () => {
    expect(recordProblems(filledRecord(loaded), loaded)).toEqual([]);
  });
  it("lists unset fields, another dataset and another prompt version", () => {
    const record = {
      ...filledRecord(loaded),
      model: "",
      prompt_version: 99,
      dataset: { file: "x.json", version: "0", sha256: "0".repeat(64) },
    };
    expect(recordProblems(record, loaded).map((p) => `${p.path}: ${p.message}`)).toEqual([
      "record.model: not set",
      `record.dataset.sha256: made for another dataset file (000000000000, this one is ${loaded.sha256.slice(0, 12)})`,
      "record.prompt_version: answers prompt version 99; this tool writes version 1",
    ]);
  });
});

describe("validate-scorer checks", () => {
  it("all pass, and cover perfect, empty and partial submissions", () => {
    const checks = runScorerChecks();
    expect(checks.filter((c) => !c.ok)).toEqual([]);
    const names = checks.map((c) => c.name).join("\n");
    expect(names).toContain("a perfect submission scores 100");
    expect(names).toContain("an empty submission scores 0");
    expect(names).toContain("partial answers (f1, transcript) score 55.0000");
  });
});
