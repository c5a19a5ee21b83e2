import { InputError } from "../core/errors.js";
import type { SessionsFile } from "../formats/sessions.js";

/**
 * The sessions file of a subset of pairs: the named pairs, unchanged and in the file's order, with the
 * file's dataset, seed and exclusions. A run of it reports rates over these pairs only, where a run of
 * the whole file restricted with `--session` counts the pairs it did not run as unresolved. Every
 * unknown id is bad input (`FILE: --pair: ...`), as is an empty list.
 */
export function subsetSessions(file: SessionsFile, path: string, pairIds: readonly string[]): SessionsFile {
  const known = new Set(file.pairs.map((p) => p.id));
  const wanted = new Set(pairIds);
  const unknown = [...wanted].filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new InputError(
      unknown.map((id) => ({
        file: path,
        path: "--pair",
        message: `no pair "${id}" in this sessions file (a pair is named by its focus task)`,
      })),
    );
  }
  if (wanted.size === 0) throw new InputError({ file: path, path: "--pair", message: "name at least one pair" });
  return { ...file, pairs: file.pairs.filter((p) => wanted.has(p.id)) };
}
