/**
 * A sentence reader for requests that give the fix away in paraphrase: a sentence that prescribes a
 * condition, a comparison, arithmetic, a choice rule or a loop (how the code must decide) without an
 * observable input and result (what a user would see). The writer check sees names; this sees
 * prescriptions. A heuristic: its findings are warnings a person reads (docs/mining.md).
 */

/** Cues of a prescription, by what they prescribe. */
const cues: ReadonlyArray<{ what: string; pattern: RegExp }> = [
  { what: "condition", pattern: /\bonly\s+(?:[a-z]+\s+){0,3}?(?:when|if|once|after|while)\b|\bas\s+long\s+as\b/gi },
  {
    what: "comparison",
    pattern:
      /\b(?:is|are|be|being|becomes?|stays?|remains?)\s+(?:strictly\s+)?(?:positive|negative|non-negative|non-positive|zero|greater|less|smaller|larger|bigger|higher|lower)\b|\b(?:greater|less|smaller|larger|more|fewer)\s+than\b|\bat\s+(?:least|most)\b|\bexceeds?\b|(?:^|\s)(?:>=|<=|<|>)(?=\s)/gi,
  },
  {
    what: "arithmetic",
    pattern:
      /\b(?:minus|divided\s+by|multiplied\s+by|rounded|round(?:ed|ing)?\s+(?:up|down)|floor(?:ed)?|ceil(?:ing|ed)?|modulo|half\s+of)\b/gi,
  },
  { what: "choice", pattern: /\b(?:prefer(?:ring)?|pick(?:ing)?|choos(?:e|ing)|tak(?:e|ing))\s+the\s+(?:[a-z]+est|first|last)\b/gi },
  {
    what: "loop",
    pattern:
      /\b(?:loop(?:ing)?\s+(?:over|through)|walk(?:ing)?\s+(?:over|through|up|down)|repeat(?:ing)?\s+(?:until|while)|until\s+no\s+more|for\s+each\s+[a-z]+\s+(?:in|of)\b)/gi,
  },
  { what: "constant", pattern: /\b(?:threshold|tolerance|epsilon|margin|cap|limit)\s+(?:of|at|to)\s+-?\d/gi },
];

/** A result a user can observe. */
const result =
  /\b(?:should|must|returns?|returning|raises?|raising|prints?|printing|outputs?|shows?|showing|displays?|gives?|yields?|produces?|renders?|emits?|reports?|errors?|fails?|warns?)\b|→|=>/i;
/** A concrete input or example: code, a quoted literal, a number, or an announced example. */
const example = /`[^`]+`|"[^"]+"|'[^']+'|\d|\be\.g\.|\bfor\s+example\b|\bfor\s+instance\b|\bsuch\s+as\b/i;

export interface LeakingSentence {
  sentence: string;
  /** The prescriptions read, as `what "words"`. */
  cues: string[];
}

/** Sentences of a text: ends at . ! ? or a line break, keeping decimals and abbreviations like e.g. whole. */
export function sentencesOf(text: string): string[] {
  return text
    .replace(/\b(e\.g|i\.e|etc|vs)\./gi, (m) => m.replace(/\./g, "\u2024"))
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/\u2024/g, ".").trim())
    .filter((s) => s !== "");
}

/** The prescriptions a sentence makes (empty when none). */
export function prescriptionsIn(sentence: string): string[] {
  return cues.flatMap((c) => [...sentence.matchAll(c.pattern)].map((m) => `${c.what} "${m[0].trim().replace(/\s+/g, " ")}"`));
}

/** Whether a sentence states an observable input and its result (then a prescription in it is behaviour). */
export function isObservable(sentence: string): boolean {
  return result.test(sentence) && example.test(sentence);
}

/** The sentences of a request text that prescribe how without saying what a user would observe. */
export function leakingSentences(text: string): LeakingSentence[] {
  return sentencesOf(text).flatMap((sentence) => {
    const found = prescriptionsIn(sentence);
    return found.length > 0 && !isObservable(sentence) ? [{ sentence, cues: found }] : [];
  });
}
