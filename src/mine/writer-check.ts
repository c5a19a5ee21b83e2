import parseDiff from "parse-diff";

/**
 * The deterministic check of a request text (a writer model's rewrite, or a text shipped in a manifest):
 * a request must not give the solution away. It fails when the text names an identifier the stage patch
 * introduces (one that occurs on an added line, on no removed or context line, and in none of the texts
 * the writer was given), names a private name of the code, states what the tests do, refers to a later
 * stage, copies a line of the patch's added code, holds a code block, or is too short or too long.
 * Every reason names its rule and the offending words: the writer's retry prompt repeats it.
 */

export const MIN_REQUEST_CHARS = 20;
export const MAX_REQUEST_CHARS = 1500;
/** Added lines shorter than this (`}`, `return x`) are not counted as code a rewrite could copy. */
const MIN_CODE_LINE_CHARS = 12;

interface PatchLines {
  added: string[];
  kept: string[];
}

function patchLines(patch: string): PatchLines {
  const out: PatchLines = { added: [], kept: [] };
  for (const file of patch.trim() === "" ? [] : parseDiff(patch)) {
    for (const chunk of file.chunks) {
      for (const change of chunk.changes) {
        const text = change.content.slice(1);
        if (change.type === "add") out.added.push(text);
        else out.kept.push(text);
      }
    }
  }
  return out;
}

/** `path | +A -D` per file of a patch: names and counts, never code. */
export function diffstatOf(patch: string): string[] {
  if (patch.trim() === "") return [];
  return parseDiff(patch).map((f) => {
    const path = f.deleted ? f.from : f.to;
    const what = f.new ? " (new file)" : f.deleted ? " (deleted)" : "";
    return `${(path ?? "?").replace(/^[ab]\//, "")} | +${f.additions} -${f.deletions}${what}`;
  });
}

const identifier = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/** Names that read as code, not as words: snake_case, camelCase, or letters mixed with digits. */
function looksLikeCode(name: string): boolean {
  if (name.length < 3) return false;
  return /[A-Za-z0-9]_[A-Za-z0-9_]|^_+[A-Za-z]/.test(name) || /[a-z][A-Z]/.test(name) || /[A-Za-z][0-9]|[0-9][A-Za-z]/.test(name);
}

/** Identifiers the patch introduces: on an added line, on no removed or context line; only the ones that read as code. */
export function introducedIdentifiers(patch: string): string[] {
  const { added, kept } = patchLines(patch);
  const before = new Set(kept.flatMap((l) => l.match(identifier) ?? []));
  const out = new Set<string>();
  for (const line of added) for (const name of line.match(identifier) ?? []) if (!before.has(name) && looksLikeCode(name)) out.add(name);
  return [...out].sort();
}

export interface CheckContext {
  patch: string;
  /** Texts the writer was given (description, earlier requests, provenance, diffstat): names in them may be repeated. */
  given: string[];
  /**
   * Private names of the code around the stage: those of the touched files before and after it
   * (privateNamesIn over their texts; src/mine/private-names.ts reads them from a repository). The
   * patch's own lines are always searched too.
   */
  privateNames?: readonly string[];
}

/**
 * Private names of code texts: identifiers that start with `_` and a letter, except dunder names
 * (`__init__`, `__repr__`), which are the language's public protocol and a user may well say, and
 * one-letter names (`_c`, `_x`): they say nothing of a fix, and are syntax in some domains a request
 * quotes (Mathematica's `f[b]_c`).
 */
export function privateNamesIn(texts: readonly string[]): string[] {
  const out = new Set<string>();
  for (const t of texts)
    for (const name of t.match(/(?<![A-Za-z0-9_$])_+[A-Za-z][A-Za-z0-9_]+/g) ?? []) if (!/^__\w+__$/.test(name)) out.add(name);
  return [...out].sort();
}

/**
 * Statements about the tests: a request says what the user wants, never what a (hidden) test checks.
 * Whole phrases, case-insensitive; docs/mining.md lists them.
 */
const testStatements: readonly RegExp[] = [
  /\b(?:the|these|those|our|its|hidden|existing|new|added|updated|failing|upstream|regression)(?:\s+(?:own|hidden|existing|new|added|updated|current|failing|upstream|regression|unit))*\s+tests?\s+(?:(?:now|also|already|still|should|must|will|would)\s+)?(?:checks?|expects?|verif(?:y|ies)|asserts?|requires?|covers?|exercises?|calls?|pass(?:es)?|fails?)\b/gi,
  /\bhidden\s+tests?\b/gi,
  /\btest\s+(?:suite|case|file|module)s?\b/gi,
  /\b(?:a|the)\s+tests?\s+(?:that|which)\b/gi,
];
/** Names of test functions and classes: `test_foo`, `testFoo`, `TestFoo`, `foo_test`. */
const testNames =
  /(?<![A-Za-z0-9_$])(?:test_[A-Za-z0-9_]+|test[A-Z][A-Za-z0-9_]*|Test[A-Z][A-Za-z0-9_]*|[A-Za-z0-9_]+_test)(?![A-Za-z0-9_$])/g;

/** References to later stages: a request is sent alone and knows nothing of what comes next. */
const laterStages: readonly RegExp[] = [
  /\b(?:in|at|with|by)\s+(?:the|a)\s+(?:next|later|following|subsequent|upcoming|final)\s+(?:step|stage|request|part|change|commit)s?\b/gi,
  /\b(?:the|a)\s+(?:next|later|following|subsequent|upcoming)\s+(?:step|stage|request|part)s?\b/gi,
  /\blater\s+(?:we|I|you)\s*(?:'ll|\s+will|\s+would|\s+can|\s+shall)\b/gi,
  /\b(?:we|I|you)\s*(?:'ll|\s+will)\s+(?:later|next)\b/gi,
  /\b(?:step|stage)\s+\d+\b/gi,
  /\bin\s+a\s+(?:later\s+)?follow-?up\b/gi,
  /\bfor\s+now\b/gi,
];

/** Every distinct match of the patterns in text order, a match inside a longer one left out. */
function matchesOf(text: string, patterns: readonly RegExp[]): string[] {
  const found = patterns.flatMap((p) =>
    [...text.matchAll(p)].map((m) => ({ at: m.index, end: m.index + m[0].length, words: m[0].replace(/\s+/g, " ") })),
  );
  found.sort((a, b) => a.at - b.at || b.end - a.end);
  const kept: typeof found = [];
  for (const f of found) if (!kept.some((k) => k.at <= f.at && f.end <= k.end)) kept.push(f);
  return [...new Set(kept.map((f) => f.words))];
}

const quoted = (words: string[]) => words.map((w) => JSON.stringify(w)).join(", ");

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The name as a whole word of the text (not inside a longer identifier). */
function mentions(text: string, name: string): boolean {
  return new RegExp(`(^|[^A-Za-z0-9_$])${escape(name)}($|[^A-Za-z0-9_$])`).test(text);
}

/** What a text says about the tests (phrases and test names), as the check reads it; `datasets audit` reads commit texts with it too. */
export function testRemarksIn(text: string): string[] {
  return [...matchesOf(text, testStatements), ...new Set(text.match(testNames) ?? [])];
}

/** The text's references to later stages, as the check reads them. */
export function laterStageReferencesIn(text: string): string[] {
  return matchesOf(text, laterStages);
}

/** Why the rewrite is refused, or null when it passes. */
export function checkRewrite(text: string, ctx: CheckContext): string | null {
  const t = text.trim();
  if (t.length < MIN_REQUEST_CHARS) return `too short (${t.length} characters, at least ${MIN_REQUEST_CHARS})`;
  if (t.length > MAX_REQUEST_CHARS) return `too long (${t.length} characters, at most ${MAX_REQUEST_CHARS})`;
  if (t.includes("```")) return "it contains a code block";
  const given = ctx.given.join("\n");
  const leaked = introducedIdentifiers(ctx.patch).filter((name) => !mentions(given, name) && mentions(t, name));
  if (leaked.length > 0)
    return `it names ${leaked.length === 1 ? "an identifier" : "identifiers"} that the change introduces: ${leaked.join(", ")}`;
  // Private names give the implementation away even when a commit message names them: no exemption.
  const { added, kept } = patchLines(ctx.patch);
  const privates = new Set([...(ctx.privateNames ?? []), ...privateNamesIn([...added, ...kept])]);
  const named = [...privates].filter((name) => mentions(t, name)).sort();
  if (named.length > 0)
    return `private names: it names ${named.length === 1 ? "a private name" : "private names"} of the code: ${named.join(", ")}`;
  const aboutTests = testRemarksIn(t);
  if (aboutTests.length > 0) return `statements about tests: it says what the tests do or names a test: ${quoted(aboutTests)}`;
  const later = laterStageReferencesIn(t);
  if (later.length > 0) return `later stages: it refers to a later stage: ${quoted(later)}`;
  const copied = patchLines(ctx.patch)
    .added.map((l) => l.trim())
    .find((l) => l.length >= MIN_CODE_LINE_CHARS && /[^A-Za-z0-9\s,.'"!?-]/.test(l) && t.includes(l));
  if (copied !== undefined) return `it copies a line of the change's code: ${JSON.stringify(copied.slice(0, 60))}`;
  return null;
}
