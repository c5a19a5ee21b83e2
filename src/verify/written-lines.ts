import { existsSync, lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bedGit, type BedGit } from "../testbed/bed-git.js";
import type { PatchBlock } from "../core/patch-blocks.js";

/** Files above this size are not read back (a text file an artifact adds is far smaller). */
const maxBytes = 4 * 1024 * 1024;

/**
 * What the artifact's binary blocks actually wrote, as text lines the base version of the file did not
 * have: a `GIT binary patch` of a Python file (a file with a NUL byte, or one produced under an
 * attribute that marks it binary) hides its lines from a scan of the patch text, but not from a scan of
 * the post-image git wrote into the checkout. Files that are not text (a NUL byte) give nothing.
 */
export async function writtenLines(tree: BedGit, blocks: readonly PatchBlock[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const checkout = tree.workTree;
  for (const b of blocks) {
    if (!b.binary || b.to === null) continue;
    const path = join(checkout, b.to);
    if (!existsSync(path) || !lstatSync(path).isFile() || lstatSync(path).size > maxBytes) continue;
    const text = readFileSync(path).toString("utf8").replace(/\0/g, "\n");
    let before = new Set<string>();
    if (b.from !== null) {
      const base = await bedGit(tree, ["show", `HEAD:${b.from}`]);
      if (base.code === 0) before = new Set(base.stdout.split("\n"));
    }
    out.set(
      b.to,
      text.split("\n").filter((l) => !before.has(l)),
    );
  }
  return out;
}
