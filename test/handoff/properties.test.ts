import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CONDITIONS,
  FIELDS,
  handoffDatasetSchema,
  scoreSubmission,
  type Field,
  type HandoffDataset,
  type Submission,
} from "../../src/handoff/index.js";
import { isSingleValue } from "../../src/handoff/fields.js";

const conditions = { transcript: "t", memory: "m", handoff: "h" };

/** A rubric of integers summing to 100: seven cut points in 0..100. */
const rubricArb = fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 7, maxLength: 7 }).map((cuts) => {
  const points = [0, ...cuts.sort((a, b) => a - b), 100];
  return Object.fromEntries(FIELDS.map((f, i) => [f, points[i + 1]! - points[i]!])) as Record<Field, number>;
});

/** One field: 2..5 candidates f0..fN and a key (one id, or any subset). */
const fieldArb = (field: Field) =>
  fc.integer({ min: 2, max: 5 }).chain((n) => {
    const ids = Array.from({ length: n }, (_, i) => `${field}-${i}`);
    const key = isSingleValue(field) ? fc.constantFrom(...ids) : fc.subarray(ids);
    return fc.record({ ids: fc.constant(ids), key: key as fc.Arbitrary<string | string[]> });
  });

const caseArb = (id: string) =>
  fc.record(Object.fromEntries(FIELDS.map((f) => [f, fieldArb(f)])) as Record<Field, ReturnType<typeof fieldArb>>).map((fields) => ({
    id,
    title: id,
    conditions,
    candidates: Object.fromEntries(FIELDS.map((f) => [f, fields[f].ids.map((cid) => ({ id: cid, text: cid }))])),
    answer: Object.fromEntries(FIELDS.map((f) => [f, fields[f].key])),
  }));

const datasetArb: fc.Arbitrary<HandoffDataset> = fc
  .record({ rubric: rubricArb, n: fc.integer({ min: 1, max: 3 }) })
  .chain(({ rubric, n }) =>
    fc
      .tuple(...Array.from({ length: n }, (_, i) => caseArb(`c${i}`)))
      .map((cases) => handoffDatasetSchema.parse({ version: "p", rubric, cases })),
  );

/** Any answer a person or a model might give for one field, valid or not. */
function answerArb(ids: string[]): fc.Arbitrary<string | string[] | null | undefined> {
  const id = fc.oneof(fc.constantFrom(...ids), fc.constant("not-a-candidate"));
  return fc.oneof(fc.constant(undefined), fc.constant(null), id, fc.array(id, { maxLength: 7 }));
}

function submissionArb(dataset: HandoffDataset): fc.Arbitrary<Submission["answers"]> {
  const perCase = dataset.cases.map((c) =>
    fc.record(
      Object.fromEntries(
        CONDITIONS.map((k) => [k, fc.record(Object.fromEntries(FIELDS.map((f) => [f, answerArb(c.candidates[f].map((x) => x.id))])))]),
      ),
    ),
  );
  return fc
    .tuple(...perCase)
    .map((answers) => Object.fromEntries(dataset.cases.map((c, i) => [c.id, answers[i]])) as Submission["answers"]);
}

const withAnswers = datasetArb.chain((dataset) =>
  fc.record({ dataset: fc.constant(dataset), answers: submissionArb(dataset), seed: fc.integer() }),
);

function mapLists(answers: Submission["answers"], fn: (list: string[], caseId: string, field: Field) => string[]): Submission["answers"] {
  const out = structuredClone(answers);
  for (const [caseId, byCondition] of Object.entries(out)) {
    for (const k of CONDITIONS) {
      const a = byCondition[k];
      if (!a) continue;
      for (const f of FIELDS) {
        const v = a[f];
        if (Array.isArray(v)) a[f] = fn(v, caseId, f);
      }
    }
  }
  return out;
}

function shuffle<T>(list: T[], seed: number): T[] {
  const out = [...list];
  let s = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function everyScore(dataset: HandoffDataset, answers: Submission["answers"]): number[] {
  const r = scoreSubmission(dataset, { answers });
  return [
    r.overall,
    ...CONDITIONS.map((k) => r.conditions[k]),
    ...Object.values(r.cases).flatMap((byK) => CONDITIONS.map((k) => byK[k].score)),
  ];
}

describe("scorer properties", () => {
  it("keeps every score in [0, 100]", () => {
    fc.assert(
      fc.property(withAnswers, ({ dataset, answers }) => {
        for (const s of everyScore(dataset, answers)) expect(s >= 0 && s <= 100 + 1e-9).toBe(true);
      }),
    );
  });

  it("does not care about the order of ids", () => {
    fc.assert(
      fc.property(withAnswers, ({ dataset, answers, seed }) => {
        const reordered = mapLists(answers, (list) => shuffle(list, seed));
        expect(everyScore(dataset, reordered)).toEqual(everyScore(dataset, answers));
      }),
    );
  });

  it("counts duplicates once", () => {
    fc.assert(
      fc.property(withAnswers, ({ dataset, answers }) => {
        const doubled = mapLists(answers, (list) => [...list, ...list]);
        expect(everyScore(dataset, doubled)).toEqual(everyScore(dataset, answers));
      }),
    );
  });

  it("never raises a score when a wrong id (a distractor or a non-candidate) is added", () => {
    fc.assert(
      fc.property(withAnswers, fc.boolean(), ({ dataset, answers }, candidate) => {
        const byId = new Map(dataset.cases.map((c) => [c.id, c]));
        const widened = mapLists(answers, (list, caseId, field) => {
          const c = byId.get(caseId)!;
          const key = c.answer[field] as string[];
          const distractor = c.candidates[field].map((x) => x.id).find((id) => !key.includes(id));
          return [...list, candidate && distractor !== undefined ? distractor : "not-a-candidate"];
        });
        const before = everyScore(dataset, answers);
        const after = everyScore(dataset, widened);
        after.forEach((s, i) => expect(s).toBeLessThanOrEqual(before[i]! + 1e-9));
      }),
    );
  });

  it("makes overall the mean of the three condition scores", () => {
    fc.assert(
      fc.property(withAnswers, ({ dataset, answers }) => {
        const r = scoreSubmission(dataset, { answers });
        expect(r.overall).toBeCloseTo((r.conditions.transcript + r.conditions.memory + r.conditions.handoff) / 3, 9);
      }),
    );
  });

  it("gives the key itself 100 under any rubric", () => {
    fc.assert(
      fc.property(datasetArb, (dataset) => {
        const answers = Object.fromEntries(
          dataset.cases.map((c) => [c.id, Object.fromEntries(CONDITIONS.map((k) => [k, { ...c.answer }]))]),
        );
        expect(scoreSubmission(dataset, { answers }).overall).toBeCloseTo(100, 9);
      }),
    );
  });
});
