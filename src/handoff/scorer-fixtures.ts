/**
 * Built-in fixtures for `handoff validate-scorer`: a two-case dataset with plain ids and answer
 * sets whose scores are computed by hand in the comments (default rubric).
 */

function cands(prefix: string, n: number): { id: string; text: string }[] {
  return Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i + 1}`, text: `statement ${prefix}${i + 1}` }));
}

function fixtureCase(id: string, answer: Record<string, string | string[]>) {
  return {
    id,
    title: `fixture ${id}`,
    // Distinct per case, so every case x condition has its own prompt.
    conditions: { transcript: `user: fix ${id}\nassistant: on it`, memory: `fixing ${id}`, handoff: `Objective: fix ${id}` },
    candidates: {
      objective: cands("o", 2),
      current_state: cands("s", 4),
      decisions: cands("d", 3),
      evidence: cands("e", 3),
      constraints: cands("c", 2),
      next_action: cands("n", 3),
      owner: cands("w", 2),
      open_questions: cands("q", 2),
    },
    answer,
  };
}

export const FIXTURE_DATASET = {
  version: "fixture-1",
  cases: [
    fixtureCase("f1", {
      objective: "o1",
      current_state: ["s1", "s2"],
      decisions: ["d1"],
      evidence: ["e1", "e2"],
      constraints: [],
      next_action: "n2",
      owner: "w1",
      open_questions: ["q1"],
    }),
    fixtureCase("f2", {
      objective: "o2",
      current_state: ["s3"],
      decisions: [],
      evidence: ["e3"],
      constraints: ["c1", "c2"],
      next_action: "n1",
      owner: "w2",
      open_questions: [],
    }),
  ],
};

/** f1 under transcript: 10 + 10 + 10 + 10 + 10 + 0 + 5 + 0 = 55. */
export const PARTIAL_F1_TRANSCRIPT = {
  answer: {
    objective: "o1", // right: 10
    current_state: ["s1", "s3"], // F1 = 2*1/(2+2) = 0.5: 10 of 20
    decisions: ["d1", "d2"], // F1 = 2*1/(2+1) = 2/3: 10 of 15
    evidence: ["e1"], // F1 = 2*1/(1+2) = 2/3: 10 of 15
    constraints: [], // empty against empty: 10 of 10
    next_action: "n1", // wrong: 0
    owner: "w1", // right: 5
    open_questions: [], // empty against {q1}: 0
  },
  fields: { objective: 10, current_state: 10, decisions: 10, evidence: 10, constraints: 10, next_action: 0, owner: 5, open_questions: 0 },
  score: 55,
};

/** f1 under memory, with every kind of flaw: 0 + 20 + 0 + 0 + 0 + 15 + 0 + 20/3 = 125/3. */
export const PARTIAL_F1_MEMORY = {
  answer: {
    objective: ["o1"], // a list for a single-value field: 0, listed
    current_state: ["s2", "s1", "s1"], // duplicates count once, order is free: 20
    decisions: ["d1", "zz"], // "zz" is not a candidate: 0, listed
    evidence: "e1", // a string for a set field: 0, listed
    constraints: ["c1"], // an id against an empty key: 0
    next_action: "n2", // right: 15
    owner: null, // no answer: 0, listed
    open_questions: ["q1", "q2"], // F1 = 2*1/(2+1) = 2/3: 20/3 of 10
  },
  fields: { objective: 0, current_state: 20, decisions: 0, evidence: 0, constraints: 0, next_action: 15, owner: 0, open_questions: 20 / 3 },
  score: 125 / 3,
};
