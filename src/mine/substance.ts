import parseDiff from "parse-diff";

/**
 * Which steps of a candidate are stages. A stage is a substantive step of one feature: it changes
 * behaviour. A step that changes none is no stage and folds into its neighbour. Everything here is
 * a pure function of the steps' diffs (the non-test part of each step, as `stagePatchesOf` gives it);
 * reading git is the caller's business.
 */

/** Why a step is no stage (the words `tasks mine` reports). */
export type FoldRule =
  | "progress only"
  | "documentation only"
  | "formatting only"
  | "type annotations only"
  | "leftover removal"
  | "typo fix"
  | `revert of step ${number}`;

export type StepClass = { substantive: true } | { substantive: false; rule: FoldRule };

interface FileChange {
  path: string;
  removed: string[];
  added: string[];
  /** Pairs of (removed, added) lines, per block of consecutive changes with as many of each; null when a block is unbalanced. */
  pairs: Array<{ old: string; new: string; inDocstring: boolean }> | null;
}

const clean = (p: string | undefined): string => (p ?? "").replace(/^[ab]\//, "");

const tripleQuotes = (line: string): number => (line.match(/"""|'''/g) ?? []).length;

/** The changed lines of each file of a diff; null when a file has no lines to compare (no rule can excuse it). */
function changesOf(patch: string): FileChange[] | null {
  if (patch.trim() === "") return [];
  const out: FileChange[] = [];
  for (const f of parseDiff(patch)) {
    // Binary, empty new file, mode change: nothing to compare line by line, so a change of behaviour.
    if (f.chunks.length === 0) return null;
    const path = f.deleted ? clean(f.from) : clean(f.to);
    const fc: FileChange = { path, removed: [], added: [], pairs: [] };
    for (const chunk of f.chunks) {
      // Post-image lines of the hunk, to tell whether a line lies inside a docstring (an odd number of
      // triple quotes before it in the hunk, or none before and an odd number after: the hunk starts inside one).
      const post = chunk.changes.filter((c) => c.type !== "del").map((c) => c.content.slice(1));
      let postIndex = 0;
      let dels: string[] = [];
      let adds: Array<{ text: string; index: number }> = [];
      const flush = () => {
        if (dels.length > 0 || adds.length > 0) {
          if (dels.length !== adds.length) fc.pairs = null;
          else
            fc.pairs?.push(
              ...dels.map((old, i) => {
                const at = adds[i]!.index;
                const before = post.slice(0, at).reduce((n, l) => n + tripleQuotes(l), 0);
                const after = post.slice(at + 1).reduce((n, l) => n + tripleQuotes(l), 0);
                return { old, new: adds[i]!.text, inDocstring: before % 2 === 1 || (before === 0 && after % 2 === 1) };
              }),
            );
        }
        dels = [];
        adds = [];
      };
      for (const c of chunk.changes) {
        const text = c.content.slice(1);
        if (c.type === "del") {
          if (adds.length > 0) flush();
          dels.push(text);
          fc.removed.push(text);
        } else if (c.type === "add") {
          adds.push({ text, index: postIndex++ });
          fc.added.push(text);
        } else {
          flush();
          postIndex++;
        }
      }
      flush();
    }
    out.push(fc);
  }
  return out;
}

/** Python: indentation is syntax, so it is kept; other languages: whitespace is never significant. */
const indentSensitive = (path: string) => /\.(py|pyi|pyx)$/.test(path);

/**
 * A line of code as the language sees it, with its comment dropped when `dropComments` (a line
 * comment: `#` in Python, `//` elsewhere, outside string literals), every other whitespace removed.
 */
function normalize(line: string, path: string, dropComments: boolean): string {
  let code = line;
  if (dropComments) {
    const marker = indentSensitive(path) ? "#" : "//";
    let quote: string | null = null;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i]!;
      if (quote) {
        if (ch === "\\") i++;
        else if (ch === quote) quote = null;
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (line.startsWith(marker, i)) {
        code = line.slice(0, i);
        break;
      }
    }
  }
  const body = code.replace(/\s+/g, "");
  if (body === "") return "";
  return indentSensitive(path) ? `${/^[ \t]*/.exec(code)![0].replace(/\t/g, "        ").length}|${body}` : body;
}

/** Whether removed and added lines are the same code once whitespace (and, if asked, comments) is ignored. */
function sameCode(f: FileChange, dropComments: boolean): boolean {
  const norm = (lines: string[]) => lines.map((l) => normalize(l, f.path, dropComments)).filter((l) => l !== "");
  const [a, b] = [norm(f.removed), norm(f.added)];
  // Outside Python, a line break is whitespace too: compare the token streams.
  return indentSensitive(f.path) ? a.join("\n") === b.join("\n") : a.join("") === b.join("");
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = d[j]!;
      d[j] = next;
    }
  }
  return d[b.length]!;
}

/** Whether position `at` of a line lies in a string literal or a line comment (a one-line lexer). */
function inText(line: string, at: number, path: string): boolean {
  const marker = indentSensitive(path) ? "#" : "//";
  let quote: string | null = null;
  for (let i = 0; i < at; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === "\\") i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (line.startsWith(marker, i)) return true;
  }
  return quote !== null;
}

const words = (line: string) => [...line.matchAll(/[A-Za-z]+|[^\sA-Za-z]/g)].map((m) => ({ text: m[0], at: m.index }));

/**
 * A typo fix: every changed line keeps its words but for misspellings (alphabetic words of three
 * letters or more, at most two edits apart), each inside a comment, a string literal or a docstring.
 */
function typoOnly(f: FileChange): boolean {
  if (!f.pairs || f.pairs.length === 0) return false;
  return f.pairs.every((p) => {
    const [a, b] = [words(p.old), words(p.new)];
    if (a.length !== b.length) return false;
    // Indentation is syntax in Python: a line moved in or out of a block is no typo fix.
    if (indentSensitive(f.path) && normalize(p.old, f.path, false).split("|")[0] !== normalize(p.new, f.path, false).split("|")[0])
      return false;
    return a.every((w, i) => {
      const v = b[i]!;
      if (w.text === v.text) return true;
      const alpha = /^[A-Za-z]{3,}$/;
      if (!alpha.test(w.text) || !alpha.test(v.text) || editDistance(w.text, v.text) > 2) return false;
      return p.inDocstring || (inText(p.old, w.at, f.path) && inText(p.new, v.at, f.path));
    });
  });
}

/** Whether `later` undoes `earlier` exactly: the same files, each line it adds removed and each it removes added back. */
function inverse(later: FileChange[], earlier: FileChange[]): boolean {
  if (later.length === 0 || later.length !== earlier.length) return false;
  const byPath = new Map(earlier.map((f) => [f.path, f]));
  return later.every((f) => {
    const e = byPath.get(f.path);
    return e !== undefined && f.removed.join("\n") === e.added.join("\n") && f.added.join("\n") === e.removed.join("\n");
  });
}

/**
 * Each step's class, in this order of rules: no change outside tests → progress only; no source file
 * changed → documentation only; the exact inverse of an earlier step → revert of that step; the same
 * source code once whitespace is ignored → formatting only; once comments are ignored too →
 * documentation only; misspellings fixed in comments, strings or docstrings → typo fix. Anything
 * else changes behaviour (as far as a diff can tell) and is a stage.
 */
export function classifySteps(patches: readonly string[], isSource: (path: string) => boolean): StepClass[] {
  const parsed = patches.map(changesOf);
  return parsed.map((files, k): StepClass => {
    if (files === null) return { substantive: true };
    if (files.length === 0) return { substantive: false, rule: "progress only" };
    const source = files.filter((f) => isSource(f.path));
    if (source.length === 0) return { substantive: false, rule: "documentation only" };
    for (let i = 0; i < k; i++) {
      const earlier = parsed[i];
      if (earlier && inverse(files, earlier)) return { substantive: false, rule: `revert of step ${i + 1}` };
    }
    if (source.every((f) => sameCode(f, false))) return { substantive: false, rule: "formatting only" };
    if (source.every((f) => sameCode(f, true))) return { substantive: false, rule: "documentation only" };
    if (source.every((f) => sameCode(f, true) || typoOnly(f))) return { substantive: false, rule: "typo fix" };
    return { substantive: true };
  });
}

export interface Fold {
  /** The step (0-based) that is no stage, why, and the step that ends the stage it joins (null: no step is a stage). */
  step: number;
  rule: FoldRule;
  into: number | null;
}

/**
 * The fold rule: a step that is no stage joins the next substantive step's stage (its changes and its
 * message come first there); steps after the last substantive one join that last stage. Returns the
 * steps that end a stage (0-based; the last stage always ends at the last step), for each step the
 * step that ends its stage, and the folds.
 */
export function foldSteps(classes: readonly StepClass[]): { cuts: number[]; endOf: Array<number | null>; folds: Fold[] } {
  const cuts = classes.flatMap((c, i) => (c.substantive ? [i] : []));
  if (cuts.length > 0) cuts[cuts.length - 1] = classes.length - 1;
  const endOf = classes.map((_, i) => cuts.find((k) => k >= i) ?? null);
  const folds = classes.flatMap((c, i): Fold[] => (c.substantive ? [] : [{ step: i, rule: c.rule, into: endOf[i]! }]));
  return { cuts, endOf, folds };
}
