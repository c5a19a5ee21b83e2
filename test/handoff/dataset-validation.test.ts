import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import { formatProblem } from "../../src/core/errors.js";
import { DEFAULT_RUBRIC, datasetWarnings, parseHandoffDataset, setF1 } from "../../src/handoff/index.js";
import { fixtureJson } from "./fixtures.js";

type Json = ReturnType<typeof fixtureJson> & Record<string, unknown>;

/** The lines of the InputError that the dataset, broken by `mutate`, produces. */
function problems(mutate: (d: Json) => void): string[] {
  const d = fixtureJson() as Json;
  mutate(d);
  try {
    parseHandoffDataset("ds.json", JSON.stringify(d));
  } catch (e) {
    if (e instanceof InputError) return e.message.split("\n");
    throw e;
  }
  return [];
}

const caseAt = (d: Json, i: number) => d.cases[i] as unknown as Record<string, Record<string, unknown>>;

describe("handoff dataset validation", () => {
  it("accepts the fixture and fills in the default rubric", () => {
    const loaded = parseHandoffDataset("ds.json", JSON.stringify(fixtureJson()));
    expect(loaded.dataset.rubric).toEqual(DEFAULT_RUBRIC);
    expect(loaded.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reports text that is not JSON as one line", () => {
    expect(() => parseHandoffDataset("ds.json", "{nope")).toThrow(/^ds\.json: not valid JSON \(/);
  });

  it("rejects unknown fields at every level", () => {
    expect(
      problems((d) => {
        d.extra = 1;
        caseAt(d, 0).flavour = {};
        (caseAt(d, 0).candidates!.owner as { id: string; text: string; colour?: string }[])[0]!.colour = "red";
        (caseAt(d, 1).conditions as Record<string, string>).email = "x";
      }),
    ).toEqual([
      'ds.json: cases[0].candidates.owner[0]: unknown field "colour"',
      'ds.json: cases[0]: unknown field "flavour"',
      'ds.json: cases[1].conditions: unknown field "email"',
      'ds.json: unknown field "extra"',
    ]);
  });

  it("rejects answer ids that are not candidates, and duplicate ids in an answer", () => {
    expect(
      problems((d) => {
        d.cases[0]!.answer.objective = "o9";
        d.cases[0]!.answer.decisions = ["d1", "d7", "d1"];
      }),
    ).toEqual([
      'ds.json: cases[0].answer.objective: "o9" is not a candidate id of objective',
      'ds.json: cases[0].answer.decisions[1]: "d7" is not a candidate id of decisions',
      'ds.json: cases[0].answer.decisions[2]: duplicate id "d1"',
    ]);
  });

  it("rejects duplicate case ids and duplicate candidate ids within a field", () => {
    expect(
      problems((d) => {
        d.cases[1]!.id = "f1";
        d.cases[0]!.candidates.evidence[2]!.id = "e1";
      }),
    ).toEqual([
      'ds.json: cases[0].candidates.evidence[2].id: duplicate candidate id "e1" (also [0])',
      'ds.json: cases[1].id: duplicate case id "f1" (also cases[0])',
    ]);
  });

  it("rejects a rubric that does not sum to 100, unknown rubric fields and missing ones", () => {
    expect(problems((d) => (d.rubric = { ...DEFAULT_RUBRIC, owner: 10 }))).toEqual(["ds.json: rubric: points add up to 105, not 100"]);
    expect(problems((d) => (d.rubric = { ...DEFAULT_RUBRIC, style: 0 }))).toEqual(['ds.json: rubric: unknown field "style"']);
    const { owner: _owner, ...rest } = DEFAULT_RUBRIC;
    expect(problems((d) => (d.rubric = { ...rest, objective: 15 }))).toEqual(["ds.json: rubric.owner: missing points (0 is allowed)"]);
  });

  it("rejects missing conditions, one or all", () => {
    expect(
      problems((d) => {
        delete (caseAt(d, 0).conditions as Record<string, string | undefined>).memory;
        delete (caseAt(d, 1) as Record<string, unknown>).conditions;
      }),
    ).toEqual(["ds.json: cases[0].conditions.memory: missing condition", "ds.json: cases[1].conditions: missing conditions"]);
  });

  it("rejects a single-value answer given as a list or left empty, and a set answer given as a string", () => {
    expect(
      problems((d) => {
        (d.cases[0]!.answer as Record<string, unknown>).objective = ["o1"];
        d.cases[0]!.answer.owner = "";
        (d.cases[0]!.answer as Record<string, unknown>).evidence = "e1";
        delete (d.cases[1]!.answer as Record<string, unknown>).next_action;
      }),
    ).toEqual([
      "ds.json: cases[0].answer.objective: objective takes one candidate id, not a list",
      "ds.json: cases[0].answer.evidence: evidence takes a list of candidate ids (possibly empty)",
      "ds.json: cases[0].answer.owner: empty answer: owner takes one candidate id",
      "ds.json: cases[1].answer.next_action: missing answer",
    ]);
  });

  it("accepts a single candidate and a lone distractor with warnings; rejects empty fields and candidates without text", () => {
    const d = fixtureJson() as Json;
    d.cases[0]!.candidates.owner = d.cases[0]!.candidates.owner.filter((c) => c.id === d.cases[0]!.answer.owner);
    const lone = d.cases[1]!.candidates.evidence.find((c) => !(d.cases[1]!.answer.evidence as string[]).includes(c.id))!;
    d.cases[1]!.candidates.evidence = [lone];
    (d.cases[1]!.answer as { evidence: string[] }).evidence = [];
    const loaded = parseHandoffDataset("ds.json", JSON.stringify(d));
    expect(datasetWarnings("ds.json", loaded.dataset).map(formatProblem)).toEqual([
      "ds.json: cases[0].candidates.owner: warning: a single candidate (the field tells nothing apart)",
      "ds.json: cases[1].candidates.evidence: warning: the only candidate is a distractor (the right answer is the empty set)",
    ]);
    // The empty answer scores: an empty set against the empty key is a match, the distractor is not.
    expect(setF1([], [])).toBe(1);
    expect(setF1([lone.id], [])).toBe(0);
    expect(
      problems((x) => {
        x.cases[0]!.candidates.owner = [];
        x.cases[1]!.candidates.owner[1]!.text = "  ";
      }),
    ).toEqual([
      "ds.json: cases[0].candidates.owner: a field needs at least one candidate",
      'ds.json: cases[0].answer.owner: "w1" is not a candidate id of owner',
      "ds.json: cases[1].candidates.owner[1].text: a candidate needs text",
    ]);
  });

  it("lists every problem of a badly broken file at once", () => {
    const lines = problems((d) => {
      d.rubric = { ...DEFAULT_RUBRIC, owner: 0 };
      d.cases[1]!.id = "f1";
      d.cases[0]!.answer.next_action = "n9";
      delete (caseAt(d, 1).conditions as Record<string, string | undefined>).handoff;
    });
    expect(lines).toHaveLength(4);
  });
});
