/**
 * pytest's own words for why a module could not be loaded, read from its printed output: the `E`
 * lines of an `ERROR collecting` section (whole, where the short summary cuts them to the terminal's
 * width or leaves them out), and the error of a conftest that cannot be imported. Pure.
 */

const sectionTitle = /^_{3,} (.+?) _{3,}$/;
const maxLines = 8;

/** The lines of an `E` block, without the marker; the last in-repository location (`pkg/a.py:3`) before it. */
function errorLines(lines: readonly string[]): { words: string[]; at: string | null } {
  const first = lines.findIndex((l) => /^E\s/.test(l));
  if (first < 0) return { words: [], at: null };
  const words: string[] = [];
  for (const l of lines.slice(first)) {
    if (!/^E\s/.test(l)) break;
    const w = l.replace(/^E\s+/, "").trimEnd();
    if (w !== "" && words.length < maxLines) words.push(w);
  }
  // Where it broke in the code under test: a relative path (absolute ones are the interpreter's and pytest's).
  const at = lines
    .slice(0, first)
    .map((l) => /^([^/<\s][^:\s]*):(\d+): in /.exec(l))
    .filter((m) => m !== null)
    .pop();
  return { words, at: at ? `${at[1]}:${at[2]}` : null };
}

const joined = (w: { words: string[]; at: string | null }) => `${w.words.join(" / ")}${w.at ? ` (at ${w.at})` : ""}`;

/**
 * Why pytest could not collect `scope` (a module or directory, relative to the rootdir), in its own
 * words: the `E` lines of the `ERROR collecting scope` section, with where it broke; null when the
 * output has no such section.
 */
export function collectionWords(output: string, scope: string): string | null {
  const lines = output.split("\n").map((l) => l.trimEnd());
  const named = (s: string) => s === scope || s.endsWith(`/${scope}`) || `${s}/` === scope;
  const start = lines.findIndex((l) => {
    const m = sectionTitle.exec(l.trim());
    return m !== null && m[1]!.startsWith("ERROR collecting ") && named(m[1]!.slice("ERROR collecting ".length));
  });
  if (start < 0) return null;
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => sectionTitle.test(l.trim()) || /^={3,}/.test(l));
  const section = end < 0 ? rest : rest.slice(0, end);
  const w = errorLines(section);
  if (w.words.length > 0) return joined(w);
  const head = section.find((l) => l.trim() !== "");
  return head ? head.trim() : null;
}

/** pytest's words when a conftest cannot be imported (it then stops before collecting any test), or null. */
export function conftestWords(output: string): string | null {
  const lines = output.split("\n").map((l) => l.trimEnd());
  const start = lines.findIndex((l) => /^ImportError while loading conftest '.*'\.$/.test(l));
  if (start < 0) return null;
  const w = errorLines(lines.slice(start + 1));
  return `${lines[start]} ${joined(w)}`.trim();
}

/** An error that says the code cannot run on this interpreter or these packages, not that a test's expectation failed. */
export const isLoadError = (words: string): boolean =>
  /\b(ImportError|ModuleNotFoundError|AttributeError|SyntaxError|NameError)\b/.test(words);
