import parseDiff from "parse-diff";

export interface PatchFile {
  /** Path before the change, or null for a new file. */
  from: string | null;
  /** Path after the change, or null for a deletion. */
  to: string | null;
  binary: boolean;
}

function clean(path: string | undefined): string | null {
  if (path === undefined || path === "/dev/null") return null;
  return path.replace(/^[ab]\//, "");
}

/**
 * The files a unified diff touches. Throws when the text is not a diff at all,
 * so validation can say "does not parse" instead of silently reading nothing.
 */
export function patchFiles(text: string): PatchFile[] {
  if (text.trim() === "") return [];
  const files = parseDiff(text);
  if (files.length === 0) throw new Error("no file headers found (expected a unified diff with 'diff --git' or '---/+++' lines)");
  return files.map((f) => ({
    from: f.new ? null : clean(f.from),
    to: f.deleted ? null : clean(f.to),
    binary: f.chunks.length === 0 && /\bBinary files\b|GIT binary patch/.test(text),
  }));
}

/** Every path a patch touches, before and after (renames count both). */
export function touchedPaths(text: string): string[] {
  const out = new Set<string>();
  for (const f of patchFiles(text)) {
    if (f.from) out.add(f.from);
    if (f.to) out.add(f.to);
  }
  return [...out].sort();
}
