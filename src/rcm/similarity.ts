/** Bag-of-words similarity (tf-idf cosine) between a request and a task's earlier requests. */

const stopwords = new Set(
  (
    "the and for that this with from into then than them they there their these those have has had was were are " +
    "not but all any can could should would will shall may might must its it's our your you yours use used using " +
    "add adds added also each when where which while what who how why new make makes made keep keeps one two " +
    "same other more most some such only just very like please now next need needs want wants given give gives " +
    "return returns returned value values text none true false does did done should about after before over under " +
    "between without within onto per via let lets get gets set sets still being been repository workspace"
  ).split(" "),
);

export type TermVector = Map<string, number>;

/** Lower-case words of 3+ letters (identifiers split on `_` and case), without stopwords. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.match(/[A-Za-z][A-Za-z0-9_]*/g) ?? []) {
    if (raw.length < 3) continue;
    const pieces = /[A-Z_]/.test(raw.slice(1)) ? raw.replace(/([a-z0-9])([A-Z])/g, "$1 $2").split(/[\s_]+/) : [raw];
    for (const piece of pieces) {
      const w = piece.toLowerCase();
      if (w.length >= 3 && !stopwords.has(w)) out.push(w);
    }
  }
  return out;
}

export function termCounts(text: string): TermVector {
  const v: TermVector = new Map();
  for (const t of terms(text)) v.set(t, (v.get(t) ?? 0) + 1);
  return v;
}

export function addInto(target: TermVector, v: TermVector, weight = 1): void {
  for (const [k, n] of v) target.set(k, (target.get(k) ?? 0) + n * weight);
}

/** Cosine of two tf-idf vectors; `idf(term)` weighs each term. */
export function cosine(a: TermVector, b: TermVector, idf: (term: string) => number): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [k, x] of a) {
    const w = idf(k);
    const wx = Math.log1p(x) * w;
    na += wx * wx;
    const y = b.get(k);
    if (y !== undefined) dot += wx * Math.log1p(y) * w;
  }
  for (const [k, y] of b) {
    const wy = Math.log1p(y) * idf(k);
    nb += wy * wy;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** A word without its plural `s` (`signs` and `sign`, `fractions` and `fraction` are one subject); not `minus`, `axis`, `class`. */
function singular(w: string): string {
  return w.length > 4 && w.endsWith("s") && !/(ss|us|is)$/.test(w) ? w.slice(0, -1) : w;
}

/** Words of how a request is put (`Follow-up on …`, `One more thing`, `Review round`), not of what it asks. */
const discourse = new Set(["follow", "thing", "round", "review", "feedback", "request", "first", "second", "finally", "last"]);

/** Code-like words of a text (`MathMLPresentationPrinter`, `fold_short_frac`, `mathml(`): names, not what is said of them. */
const codeWord = /\b[A-Za-z_]\w*(?:[a-z0-9][A-Z]|_)\w*\b|\b[A-Za-z_]\w*(?=\()/g;

/**
 * What a text says about its subject: its words in singular, without the words of names (the files,
 * modules and classes it refers to, and any code-like word of `text`), of how it is put, and of
 * `common` words. Two requests about one module share those names; only the rest tells whether they
 * ask for one thing.
 */
export function subjectTerms(v: TermVector, names: readonly string[], text = "", common: ReadonlySet<string> = new Set()): TermVector {
  const all = [...names, ...(text.match(codeWord) ?? [])];
  // `MathMLPresentationPrinter` reads as `mathml presentation printer` and as `math mlpresentation printer`.
  const drop = new Set(
    all.flatMap((n) => [...terms(n), ...terms(n.replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2").replace(/[/.]/g, " "))]).map(singular),
  );
  const out: TermVector = new Map();
  for (const [k, n] of v) {
    const w = singular(k);
    if (!drop.has(w) && !discourse.has(w) && !common.has(w)) out.set(w, (out.get(w) ?? 0) + n);
  }
  return out;
}
