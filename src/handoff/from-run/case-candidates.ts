import { seededRandom, shuffled, type Random } from "../../core/random.js";
import type { AnswerKey, HandoffCase } from "../dataset-schema.js";
import { FIELDS, type Field, type Rubric } from "../fields.js";
import { constraintSentences, firstRequests, headline, type FocusReturnFacts } from "./case-facts.js";

/** Fields whose answer key the dataset's request texts give; the others carry no points in these cases. */
export const FROM_RUN_RUBRIC: Rubric = {
  objective: 20,
  current_state: 30,
  decisions: 0,
  evidence: 0,
  constraints: 20,
  next_action: 30,
  owner: 0,
  open_questions: 0,
};

interface Statement {
  text: string;
  right: boolean;
}

type Candidates = HandoffCase["candidates"];

/** Candidates with ids `<prefix>1…` in a seeded order (so the answer is not always first), and the ids of the right ones. */
function place(rng: Random, prefix: string, statements: readonly Statement[]): { list: Candidates[Field]; right: string[] } {
  const unique = statements.filter((s, i) => statements.findIndex((t) => t.text === s.text) === i);
  const order = shuffled(rng, unique);
  const list = order.map((s, i) => ({ id: `${prefix}${i + 1}`, text: s.text }));
  return { list, right: order.flatMap((s, i) => (s.right ? [`${prefix}${i + 1}`] : [])) };
}

const right = (text: string): Statement => ({ text, right: true });
const wrong = (text: string): Statement => ({ text, right: false });

/**
 * A field the request texts say nothing about (no points): statements about the other tasks, all
 * distractors, so the key is the empty set.
 */
function otherTasksOnly(rng: Random, prefix: string, lead: string, others: readonly string[], fallback: string) {
  return place(
    rng,
    prefix,
    (others.length > 0 ? others : [fallback]).slice(0, 3).map((t) => wrong(`${lead}${t}`)),
  );
}

/**
 * Candidates and the answer key of one focus return, from the dataset's request texts only: the
 * focus task's requests so far (right), the other tasks' requests and the focus task's own future
 * stages (distractors). No one's judgement enters the key.
 */
export function buildCandidates(f: FocusReturnFacts, caseId: string): { candidates: Candidates; answer: AnswerKey } {
  const rng = seededRandom("handoff-from-run", caseId);
  const focusFirst = f.delivered[0] ?? f.next;
  const others = firstRequests(f.interruptions);
  const objective = place(rng, "o", [right(headline(focusFirst)), ...others.map((s) => wrong(headline(s)))]);
  const state = place(rng, "s", [
    ...f.delivered.map((s) => right(`Requested and worked on: ${headline(s)}`)),
    ...f.interruptions.slice(-3).map((s) => wrong(`Requested and worked on: ${headline(s)}`)),
    ...f.future.slice(0, 2).map((s) => wrong(`Requested and worked on: ${headline(s)}`)),
  ]);
  const constraints = place(rng, "c", [
    ...f.delivered.flatMap(constraintSentences).slice(-4).map(right),
    ...f.interruptions.flatMap(constraintSentences).slice(-3).map(wrong),
    ...f.future.flatMap(constraintSentences).slice(0, 2).map(wrong),
  ]);
  const otherHeadlines = others.map(headline);
  const lastOther = f.interruptions[f.interruptions.length - 1];
  const next = place(rng, "n", [
    right(headline(f.next)),
    ...(lastOther ? [wrong(headline(lastOther))] : []),
    ...f.future.slice(0, 1).map((s) => wrong(headline(s))),
    ...f.delivered.slice(-1).map((s) => wrong(headline(s))),
  ]);
  const fields: Record<Field, { list: Candidates[Field]; right: string[] }> = {
    objective,
    current_state: state,
    decisions: otherTasksOnly(rng, "d", "Decided to set this work aside for good in favour of: ", otherHeadlines, "The work was abandoned"),
    evidence: otherTasksOnly(rng, "e", "A tool result showed this work is complete: ", otherHeadlines, "The work was verified complete"),
    constraints:
      constraints.list.length > 0
        ? constraints
        : otherTasksOnly(rng, "c", "", others.flatMap(constraintSentences), "Nothing may be changed"),
    next_action: next,
    owner: place(rng, "w", [right("The agent that was working on it"), wrong("Nobody: the work is finished")]),
    open_questions: otherTasksOnly(
      rng,
      "q",
      "Still to be settled for this work: whether to ",
      otherHeadlines.map((t) => t.charAt(0).toLowerCase() + t.slice(1)),
      "drop it",
    ),
  };
  const candidates = Object.fromEntries(FIELDS.map((k) => [k, fields[k].list])) as Candidates;
  const answer = Object.fromEntries(
    FIELDS.map((k) => [k, k === "objective" || k === "next_action" || k === "owner" ? fields[k].right[0]! : fields[k].right]),
  ) as AnswerKey;
  return { candidates, answer };
}
