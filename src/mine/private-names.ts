import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, gitTry } from "../core/git.js";
import { touchedPaths } from "../dataset/patch-files.js";
import { privateNamesIn } from "./writer-check.js";

/**
 * Per stage, the private names (writer-check.ts, privateNamesIn) of the files the stage touches, in
 * their text before and after the stage: what the writer check refuses a request to name. The stages
 * are replayed from the base onto a scratch index (`git apply --cached`), so a dataset that knows only
 * its base and stage patches gives the same names as one that knows every stage's commit. A file that
 * does not exist on one side (new, deleted) contributes the other side only.
 */
export async function privateNamesAtStages(gitDir: string, base: string, stagePatches: readonly string[]): Promise<string[][]> {
  const scratch = mkdtempSync(join(tmpdir(), "switch-swe-private-names-"));
  const env = { GIT_INDEX_FILE: join(scratch, "index") };
  const read = async (path: string): Promise<string> => {
    const r = await gitTry(["--git-dir", gitDir, "show", `:${path}`], { env, maxBuffer: 64 * 1024 * 1024 });
    return r.code === 0 ? r.stdout : "";
  };
  try {
    await git(["--git-dir", gitDir, "read-tree", base], { env });
    const out: string[][] = [];
    for (const [k, patch] of stagePatches.entries()) {
      const paths = patch.trim() === "" ? [] : touchedPaths(patch);
      const before = await Promise.all(paths.map(read));
      if (paths.length > 0) {
        const file = join(scratch, `stage-${k + 1}.patch`);
        writeFileSync(file, patch);
        await git(["--git-dir", gitDir, "apply", "--cached", "--binary", file], { env });
      }
      const after = await Promise.all(paths.map(read));
      out.push(privateNamesIn([...before, ...after]));
    }
    return out;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
