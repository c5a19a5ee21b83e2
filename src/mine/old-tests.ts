import { fileURLToPath } from "node:url";
import parseDiff from "parse-diff";
import { runProcess } from "../core/process.js";

/**
 * Old, unchanged tests: a test that fails before the stages only because its module cannot be
 * imported there (it imports what the stages add), while its own code is what it was, asks for
 * nothing new. It is a regression test, not a fail-to-pass test of the task (docs/mining.md).
 */

/** Where tests.patch touches a file, in post-image line numbers; `created`: the patch creates the file. */
export interface FileTouches {
  created: boolean;
  /** Added lines, and the post-image line before which lines were removed. */
  lines: Set<number>;
}

/** The post-image lines each test file of `testsPatch` touches (parse-diff's hunks). */
export function patchTouches(testsPatch: string): Map<string, FileTouches> {
  const out = new Map<string, FileTouches>();
  if (testsPatch.trim() === "") return out;
  for (const f of parseDiff(testsPatch)) {
    if (f.deleted) continue;
    const path = (f.to ?? "").replace(/^b\//, "");
    const t: FileTouches = { created: f.new === true, lines: new Set() };
    for (const chunk of f.chunks) {
      let next = chunk.newStart;
      for (const c of chunk.changes) {
        if (c.type === "add") t.lines.add(next++);
        else if (c.type === "del") t.lines.add(next);
        else next++;
      }
    }
    out.set(path, t);
  }
  return out;
}

/** `Class::test_name` of a pytest node id (parameters dropped), or null for ids in another notation. */
export function functionKey(id: string): { file: string; key: string } | null {
  const parts = id.split("::");
  if (parts.length < 2) return null;
  return { file: parts[0]!, key: parts.slice(1).join("::").replace(/\[.*$/s, "") };
}

/**
 * Which of `ids` are unchanged by tests.patch: their module existed before it, and no line of their
 * function (decorators included) was added or removed. `ranges` gives each file's function line
 * ranges in the post-image (null: unknown, e.g. the file does not parse); a test whose function is
 * not found (inherited, generated) counts as changed.
 */
export function unchangedIds(
  ids: readonly string[],
  touches: ReadonlyMap<string, FileTouches>,
  ranges: ReadonlyMap<string, Record<string, [number, number]> | null>,
): string[] {
  return ids.filter((id) => {
    const k = functionKey(id);
    if (!k) return false;
    const t = touches.get(k.file);
    if (t?.created) return false;
    const range = ranges.get(k.file)?.[k.key];
    if (!range) return false;
    if (!t) return true;
    for (let line = range[0]; line <= range[1]; line++) if (t.lines.has(line)) return false;
    return true;
  });
}

const helper = fileURLToPath(new URL("../testbed/test-functions.py", import.meta.url));

/** Function line ranges of Python files (src/testbed/test-functions.py, run by the tests' own interpreter). */
export async function functionRanges(
  python: string,
  files: ReadonlyMap<string, string>,
): Promise<Map<string, Record<string, [number, number]> | null>> {
  if (files.size === 0) return new Map();
  const r = await runProcess(python, ["-I", helper], {
    input: JSON.stringify(Object.fromEntries(files)),
    timeoutMs: 120_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" },
  });
  if (r.code !== 0) throw new Error(`${python} test-functions.py: exit ${r.code ?? r.signal}: ${r.stderr.trim().slice(-500)}`);
  return new Map(Object.entries(JSON.parse(r.stdout) as Record<string, Record<string, [number, number]> | null>));
}
