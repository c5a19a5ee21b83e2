import { sha256 } from "../core/digest.js";
import { git, gitOut } from "../core/git.js";

/**
 * What a task is derived from in a repository's history: a base commit and the commits that end
 * each stage ("cuts"). Stage K's patch is the non-test part of cut K-1..cut K; tests.patch is the
 * test part of base..last cut. Mining and materialization both call these, so a materialized
 * dataset is byte-identical to the mined one. Diff options are fixed (no renames, full index,
 * binary), and git runs without the user's configuration.
 */

export type PathClass = (path: string) => boolean;

const diffArgs = ["diff", "--binary", "--full-index", "--no-renames", "--no-color", "--no-ext-diff"];

/** Paths changed between two commits. */
export async function changedPaths(gitDir: string, from: string, to: string): Promise<string[]> {
  const out = await gitOut(["--git-dir", gitDir, "diff", "--name-only", "--no-renames", "-z", from, to]);
  return out.split("\0").filter((p) => p !== "");
}

async function diffOf(gitDir: string, from: string, to: string, paths: readonly string[]): Promise<string> {
  if (paths.length === 0) return "";
  // Raw output: trimming would damage a last line that is whitespace only.
  const r = await git(["--git-dir", gitDir, ...diffArgs, from, to, "--", ...paths.map((p) => `:(literal)${p}`)], {
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.stdout.length >= 256 * 1024 * 1024) throw new Error(`the diff ${from}..${to} is too large`);
  return r.stdout;
}

/** Stage patches (non-test files) between consecutive cuts, starting at `base`. */
export async function stagePatchesOf(gitDir: string, base: string, cuts: readonly string[], isTest: PathClass): Promise<string[]> {
  const out: string[] = [];
  let from = base;
  for (const cut of cuts) {
    const paths = (await changedPaths(gitDir, from, cut)).filter((p) => !isTest(p));
    out.push(await diffOf(gitDir, from, cut, paths));
    from = cut;
  }
  return out;
}

/** The test files' changes from the base to the last cut. */
export async function testsPatchOf(gitDir: string, base: string, last: string, isTest: PathClass): Promise<string> {
  const paths = (await changedPaths(gitDir, base, last)).filter(isTest);
  return diffOf(gitDir, base, last, paths);
}

/** The digests a manifest records for a task's upstream part: each stage patch's, and tests.patch's. */
export async function upstreamDigestsOf(
  gitDir: string,
  base: string,
  cuts: readonly string[],
  isTest: PathClass,
): Promise<{ stages: string[]; tests: string }> {
  const stages = await stagePatchesOf(gitDir, base, cuts, isTest);
  return { stages: stages.map(sha256), tests: sha256(await testsPatchOf(gitDir, base, cuts[cuts.length - 1]!, isTest)) };
}

/** The commits of a stage (from, to], oldest first, first-parent. */
export async function stageCommits(gitDir: string, from: string, to: string): Promise<string[]> {
  const out = await gitOut(["--git-dir", gitDir, "rev-list", "--reverse", "--first-parent", `${from}..${to}`]);
  return out.split("\n").filter((l) => l !== "");
}

/** A stage's request text derived from its own description: the messages of its commits. */
export async function stageText(gitDir: string, from: string, to: string): Promise<string> {
  const parts: string[] = [];
  for (const c of await stageCommits(gitDir, from, to)) {
    parts.push((await gitOut(["--git-dir", gitDir, "log", "-1", "--format=%B", c])).trim());
  }
  return parts.filter((p) => p !== "").join("\n\n") || `Apply the change of commit ${to.slice(0, 12)}.`;
}
