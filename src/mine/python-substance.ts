import { fileURLToPath } from "node:url";
import { gitTry } from "../core/git.js";
import { runProcess } from "../core/process.js";
import { changedPaths, type PathClass } from "../manifests/derive.js";
import type { FoldRule } from "./substance.js";

const helper = fileURLToPath(new URL("../testbed/python-substance.py", import.meta.url));

type FileVerdict = "same" | "docstrings" | "annotations" | "leftovers" | "different";

/** A file at a commit, or null where it does not exist. */
export async function textAt(gitDir: string, rev: string, path: string): Promise<string | null> {
  const r = await gitTry(["--git-dir", gitDir, "cat-file", "blob", `${rev}:${path}`], { maxBuffer: 64 * 1024 * 1024 });
  return r.code === 0 ? r.stdout : null;
}

/**
 * The syntax tree's word on a step that the diff rules call substantive (src/mine/substance.ts): when
 * every source file it changes is Python and the trees are the same once formatting, docstrings or type
 * annotations are set aside (src/testbed/python-substance.py, run by this machine's python3), the step
 * changes no behaviour and is no stage; so is a step that only removes imports or print() calls an
 * earlier step of the candidate added (absent at `base`): a debug print, an import the linter calls
 * unused. Null: a change of behaviour, as far as the tree can tell (a file that is not Python, added,
 * deleted or unparsable is one).
 */
export async function pythonFold(gitDir: string, base: string, from: string, to: string, isSource: PathClass): Promise<FoldRule | null> {
  const paths = (await changedPaths(gitDir, from, to)).filter(isSource);
  if (paths.length === 0 || !paths.every((p) => p.endsWith(".py"))) return null;
  const files = await Promise.all(
    paths.map(async (path) => ({
      path,
      base: await textAt(gitDir, base, path),
      before: await textAt(gitDir, from, path),
      after: await textAt(gitDir, to, path),
    })),
  );
  const r = await runProcess("python3", ["-I", helper], {
    input: JSON.stringify(files),
    timeoutMs: 120_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" },
  });
  // No python3, or the helper failed: the diff rules' answer stands (the step is a stage).
  if (r.code !== 0) return null;
  const verdicts = JSON.parse(r.stdout) as FileVerdict[];
  if (verdicts.every((v) => v === "same")) return "formatting only";
  if (verdicts.every((v) => v === "same" || v === "docstrings")) return "documentation only";
  if (verdicts.every((v) => v !== "different" && v !== "leftovers")) return "type annotations only";
  if (verdicts.every((v) => v !== "different")) return "leftover removal";
  return null;
}
