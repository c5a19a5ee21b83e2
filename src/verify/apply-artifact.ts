import { join } from "node:path";
import { applyWithFallbacks, resetTree, type ApplyMethod } from "../testbed/apply-patch.js";
import type { BedGit } from "../testbed/bed-git.js";
import { writeHeldOut, type HeldOutFile } from "../testbed/held-out-files.js";
import { checkAppliedPaths, checkSymlinkEscapes } from "./path-safety.js";
import { writeBlocks, type PatchBlock } from "../core/patch-blocks.js";
import { changedPaths, snapshotTree, unapprovedChanges } from "./tree-changes.js";

export type KeptApplied = { method: ApplyMethod | "empty" } | { error: string };

/** At most this many unapproved paths are named in a verdict. */
const namedPaths = 5;

/**
 * Applies the kept blocks (as the one parser re-serialised them) to a checkout whose git directory
 * is outside it, then compares every path of the checkout, before and after, with the paths those
 * blocks name: a change anywhere else (`.git/`, an ignored file, a file the filter dropped) voids the
 * artifact, whatever tool wrote it. Refusals are the artifact's failure (`error`), never a fault.
 */
export async function applyKeptBlocks(
  tree: BedGit,
  kept: readonly PatchBlock[],
  dir: string,
  log: (t: string) => void,
): Promise<KeptApplied> {
  const escape = checkSymlinkEscapes(tree.workTree, kept);
  if (escape) return { error: `refused: ${escape}` };
  if (kept.length === 0) return { method: "empty" };
  const patchFile = join(dir, "artifact.kept.patch");
  writeBlocks(patchFile, kept);
  await resetTree(tree);
  const before = snapshotTree(tree.workTree);
  const applied = await applyWithFallbacks(tree, patchFile, log);
  if (!applied.ok) return { error: applied.error };
  const stray = unapprovedChanges(
    changedPaths(before, snapshotTree(tree.workTree)),
    kept.flatMap((b) => b.paths),
  );
  if (stray.length > 0) {
    const more = stray.length > namedPaths ? ` and ${stray.length - namedPaths} more` : "";
    log(`applying (${applied.method}) changed paths no kept block names: ${stray.join(", ")}\n`);
    return {
      error: `refused: applying the artifact (${applied.method}) changed paths that no kept block names: ${stray.slice(0, namedPaths).join(", ")}${more}`,
    };
  }
  const after = checkAppliedPaths(tree.workTree, kept);
  if (after) return { error: `refused: ${after}` };
  return { method: applied.method };
}

/**
 * Writes the held-out tests (their post-images from a pristine tree) over the artifact's checkout;
 * a tree the artifact shaped so that they cannot be written is the artifact's failure. Errors of the
 * disk itself stay errors (the verifier's).
 */
export function placeHeldOut(tree: BedGit, files: readonly HeldOutFile[]): string | null {
  try {
    const why = writeHeldOut(tree.workTree, files);
    return why === null ? null : `refused: the held-out tests cannot be written: ${why}`;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOSPC" || code === "EDQUOT" || code === "EIO") throw e;
    return `refused: the held-out tests cannot be written: ${(e as Error).message}`;
  }
}
