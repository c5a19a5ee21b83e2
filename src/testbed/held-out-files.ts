import { chmodSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { splitPatch } from "../core/patch-blocks.js";
import { applyExact } from "./apply-patch.js";
import type { BedGit } from "./bed-git.js";

/** One path of the held-out tests after `tests.patch`: its bytes and mode, a link's target, or gone. */
export type HeldOutFile =
  | { path: string; kind: "file"; data: Buffer; mode: number }
  | { path: string; kind: "symlink"; target: string }
  | { path: string; kind: "absent" };

/**
 * The post-image of every path `tests.patch` touches, computed by applying it to a PRISTINE tree
 * (before any artifact): the held-out tests are then written as bytes by the harness into the
 * artifact's checkout, never by a git that reads a tree the artifact wrote. Null when it does not
 * apply (the dataset's fault), with git's words in `error`.
 */
export async function heldOutPostImages(
  pristine: BedGit,
  testsPatch: string,
  patchFile: string,
): Promise<{ files: HeldOutFile[] } | { error: string }> {
  writeFileSync(patchFile, testsPatch);
  const err = await applyExact(pristine, patchFile);
  if (err) return { error: err };
  const paths = new Set<string>();
  for (const b of splitPatch(testsPatch)) for (const p of [b.from, b.to]) if (p !== null) paths.add(p);
  const files: HeldOutFile[] = [];
  for (const path of [...paths].sort()) {
    const full = join(pristine.workTree, path);
    const st = lstatSync(full, { throwIfNoEntry: false });
    if (!st) files.push({ path, kind: "absent" });
    else if (st.isSymbolicLink()) files.push({ path, kind: "symlink", target: readlinkSync(full) });
    else files.push({ path, kind: "file", data: readFileSync(full), mode: st.mode & 0o777 });
  }
  return { files };
}

/** Makes the directories above `path` as real directories; why not when a component is anything else. */
function realParents(root: string, path: string): string | null {
  const parts = path.split("/").slice(0, -1);
  for (let k = 1; k <= parts.length; k++) {
    const rel = parts.slice(0, k).join("/");
    const st = lstatSync(join(root, rel), { throwIfNoEntry: false });
    if (!st) mkdirSync(join(root, rel));
    else if (!st.isDirectory())
      return `${rel} is ${st.isSymbolicLink() ? "a symbolic link" : "a file"} where the held-out tests need a directory`;
  }
  return null;
}

/**
 * Writes the held-out tests into the artifact's checkout, replacing whatever is at each path (never
 * following a link the artifact made). Returns why it cannot (the artifact put a link or a file where
 * a directory of the tests goes, or a directory where a test file goes): the artifact's failure.
 */
export function writeHeldOut(root: string, files: readonly HeldOutFile[]): string | null {
  for (const f of files) {
    const bad = realParents(root, f.path);
    if (bad) return bad;
    const full = join(root, f.path);
    const st = lstatSync(full, { throwIfNoEntry: false });
    if (st?.isDirectory()) return `${f.path} is a directory where the held-out tests have ${f.kind === "absent" ? "nothing" : "a file"}`;
    if (st) unlinkSync(full);
    if (f.kind === "file") {
      writeFileSync(full, f.data, { mode: f.mode, flag: "wx" });
      chmodSync(full, f.mode);
    } else if (f.kind === "symlink") symlinkSync(f.target, full);
  }
  return null;
}
