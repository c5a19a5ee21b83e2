import parseDiff from "parse-diff";

/**
 * The deterministic check of a writer model's rewrite: a request must not give the solution away.
 * It fails when the rewrite names an identifier the stage patch introduces (one that occurs on an
 * added line, on no removed or context line, and in none of the texts the writer was given), copies
 * a line of the patch's added code, holds a code block, or is too short or too long.
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
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The name as a whole word of the text (not inside a longer identifier). */
function mentions(text: string, name: string): boolean {
  return new RegExp(`(^|[^A-Za-z0-9_$])${escape(name)}($|[^A-Za-z0-9_$])`).test(text);
}

/** Why the rewrite is refused, or null when it passes. */
export function checkRewrite(text: string, ctx: CheckContext): string | null {
  const t = text.trim();
  if (t.length < MIN_REQUEST_CHARS) return `too short (${t.length} characters, at least ${MIN_REQUEST_CHARS})`;
  if (t.length > MAX_REQUEST_CHARS) return `too long (${t.length} characters, at most ${MAX_REQUEST_CHARS})`;
  if (t.includes("```")) return "it contains a code block";
  const given = ctx.given.join("\n");
  const leaked = introducedIdentifiers(ctx.patch).filter((name) => !mentions(given, name) && mentions(t, name));
  if (leaked.length > 0) return `it names ${leaked.length === 1 ? "an identifier" : "identifiers"} that the change introduces: ${leaked.join(", ")}`;
  const copied = patchLines(ctx.patch).added.map((l) => l.trim()).find((l) => l.length >= MIN_CODE_LINE_CHARS && /[^A-Za-z0-9\s,.'"!?-]/.test(l) && t.includes(l));
  if (copied !== undefined) return `it copies a line of the change's code: ${JSON.stringify(copied.slice(0, 60))}`;
  return null;
}
