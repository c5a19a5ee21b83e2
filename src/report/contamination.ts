/**
 * Cross-task contamination of the focus artifact (docs/report-format.md, "Signatures"): lines of the
 * final focus patch that carry another task's material. Pure: patch texts and request texts in, counts out.
 */

/** What one task's own material contains: its requests and its reference patches (stages and tests). */
export interface TaskMaterial {
  /** Significant lines added by its reference patches (trimmed). */
  addedLines: Set<string>;
  /** Every significant line of its reference patches, whatever the side (trimmed). */
  allLines: Set<string>;
  /** Identifiers anywhere in its requests and reference patches. */
  identifiers: Set<string>;
  /** Identifiers it introduces: in its added lines or request texts, in none of its removed or context lines. */
  introduced: Set<string>;
}

/** The focus artifact as the signature reads it. */
export interface ArtifactLines {
  /** Added lines, trimmed (significant or not). */
  added: string[];
  /** The file of each added line (same order as `added`), from the `+++ b/` header before it. */
  files: string[];
  /** Identifiers of its removed and context lines (already in the code the artifact touches). */
  surrounding: Set<string>;
}

const identifierRe = /[A-Za-z_][A-Za-z0-9_]{5,}/g;

/** A line worth matching: at least 8 characters after trimming, with at least one letter. */
export function significant(line: string): boolean {
  return line.length >= 8 && /[A-Za-z]/.test(line);
}

export function identifiersOf(text: string): string[] {
  return text.match(identifierRe) ?? [];
}

interface PatchSides {
  added: string[];
  /** The file of each added line. */
  addedFiles: string[];
  other: string[];
}

/** Body lines of a unified diff split by side (headers and hunk markers left out). */
function patchSides(patch: string): PatchSides {
  const out: PatchSides = { added: [], addedFiles: [], other: [] };
  let file = "";
  for (const line of patch.split("\n")) {
    if (line.startsWith("+++ ")) file = line.slice(4).replace(/^b\//, "");
    if (
      line.startsWith("+++ ") ||
      line.startsWith("--- ") ||
      line.startsWith("diff --git ") ||
      line.startsWith("@@") ||
      line.startsWith("index ")
    )
      continue;
    if (line.startsWith("+")) {
      out.added.push(line.slice(1).trim());
      out.addedFiles.push(file);
    } else if (line.startsWith("-") || line.startsWith(" ")) out.other.push(line.slice(1).trim());
  }
  return out;
}

export function taskMaterial(patches: readonly string[], requestTexts: readonly string[]): TaskMaterial {
  const m: TaskMaterial = { addedLines: new Set(), allLines: new Set(), identifiers: new Set(), introduced: new Set() };
  const existing = new Set<string>();
  const candidates = new Set<string>();
  for (const p of patches) {
    const sides = patchSides(p);
    for (const l of sides.added) {
      if (significant(l)) {
        m.addedLines.add(l);
        m.allLines.add(l);
      }
      for (const id of identifiersOf(l)) candidates.add(id);
    }
    for (const l of sides.other) {
      if (significant(l)) m.allLines.add(l);
      for (const id of identifiersOf(l)) existing.add(id);
    }
  }
  for (const t of requestTexts) for (const id of identifiersOf(t)) candidates.add(id);
  for (const id of candidates) {
    m.identifiers.add(id);
    if (!existing.has(id)) m.introduced.add(id);
  }
  for (const id of existing) m.identifiers.add(id);
  return m;
}

export function artifactLines(patch: string): ArtifactLines {
  const sides = patchSides(patch);
  const surrounding = new Set<string>();
  for (const l of sides.other) for (const id of identifiersOf(l)) surrounding.add(id);
  return { added: sides.added, files: sides.addedFiles, surrounding };
}

/** One contaminated line: its position in the artifact's added lines and the interruption it came from. */
export interface ContaminatedLine {
  line: number;
  /** Index into the interruptions given (the first whose material it carries). */
  from: number;
}

/**
 * Added lines of the artifact that carry an interruption task's material and not the focus task's: the
 * line is one the interruption's reference patches add (and no line of the focus task's patches), or it
 * holds an identifier the interruption introduces that appears nowhere in the focus task's requests and
 * patches nor around the artifact's own changes.
 */
export function contaminatedLines(
  artifact: ArtifactLines,
  focus: TaskMaterial,
  interruptions: readonly TaskMaterial[],
): ContaminatedLine[] {
  const out: ContaminatedLine[] = [];
  artifact.added.forEach((line, i) => {
    const lineForeign = (t: TaskMaterial) => significant(line) && !focus.allLines.has(line) && t.addedLines.has(line);
    const ids = identifiersOf(line).filter((id) => !focus.identifiers.has(id) && !artifact.surrounding.has(id));
    const from = interruptions.findIndex((t) => lineForeign(t) || ids.some((id) => t.introduced.has(id)));
    if (from >= 0) out.push({ line: i, from });
  });
  return out;
}
