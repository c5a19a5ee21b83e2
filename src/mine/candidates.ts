import { posix } from "node:path";
import { gitOut } from "../core/git.js";
import { changedPaths, type PathClass } from "../manifests/derive.js";

/** A run of history that may become a multi-stage task: a base and the commits that end its steps. */
export interface Candidate {
  kind: "merge" | "chain";
  base: string;
  /** One commit per step, oldest first. */
  cuts: string[];
  /** Where it came from: the merge commit and branch name, or the chain's commits. */
  provenance: string;
}

export interface StepShape {
  commit: string;
  source: string[];
  tests: string[];
}

/** Which source and test files a commit changes (against its first parent). */
async function stepShape(gitDir: string, commit: string, isSource: PathClass, isTest: PathClass): Promise<StepShape> {
  const paths = await changedPaths(gitDir, `${commit}^`, commit);
  return { commit, source: paths.filter((p) => isSource(p) && !isTest(p)), tests: paths.filter(isTest) };
}

async function lines(gitDir: string, args: string[]): Promise<string[]> {
  return (await gitOut(["--git-dir", gitDir, ...args])).split("\n").filter((l) => l !== "");
}

/** The branch name a merge commit's message names (`Merge branch 'x'`, `Merge pull request #1 from o/x`). */
export function branchOf(message: string): string | null {
  const m = /^Merge (?:branch '([^']+)'|pull request #\d+ from (\S+))/.exec(message);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/**
 * A merged branch with at least two commits that change source, and tests changed by some commit.
 * A branch that merged other history into itself (`Merge branch 'main' into feature`) starts after
 * its last such merge: that merge's diff against the branch is everyone else's work, so it can be
 * no stage, and the branch's steps before it are part of the base the task starts from.
 */
async function mergeCandidate(
  gitDir: string,
  merge: string,
  isSource: PathClass,
  isTest: PathClass,
  maxSteps: number,
  paths: readonly string[],
): Promise<{ candidate: Candidate; sources: string[] } | null> {
  let base = (await gitOut(["--git-dir", gitDir, "merge-base", `${merge}^1`, `${merge}^2`])).trim();
  const [lastSync] = await lines(gitDir, ["rev-list", "--first-parent", "--merges", "-n", "1", `${base}..${merge}^2`]);
  if (lastSync) base = lastSync;
  const steps = await lines(gitDir, ["rev-list", "--reverse", "--first-parent", `${base}..${merge}^2`]);
  if (steps.length < 2 || steps.length > maxSteps) return null;
  // The branch's net source changes are a subset of its steps': outside --path, no step need be read.
  if (
    paths.length > 0 &&
    !within(
      paths,
      (await changedPaths(gitDir, base, `${merge}^2`)).filter((p) => isSource(p) && !isTest(p)),
    )
  )
    return null;
  const shapes = await Promise.all(steps.map((c) => stepShape(gitDir, c, isSource, isTest)));
  // Two steps that change source (a stage need not bring tests of its own), and tests somewhere: the
  // task's F2P tests come from the branch. Whether the steps change behaviour is judged later, on diffs.
  if (shapes.filter((s) => s.source.length > 0).length < 2 || !shapes.some((s) => s.tests.length > 0)) return null;
  const subject = await gitOut(["--git-dir", gitDir, "log", "-1", "--format=%s", merge]);
  const branch = branchOf(subject);
  const after = lastSync ? `, after the branch's merge ${lastSync}` : "";
  return {
    candidate: { kind: "merge", base, cuts: steps, provenance: `merge ${merge}${branch ? ` of branch ${branch}` : ""}${after}` },
    sources: shapes.flatMap((s) => s.source),
  };
}

/** Consecutive commits that each change source and tests, on one feature (sharing a source directory). */
function chains(shapes: readonly StepShape[], maxSteps: number): StepShape[][] {
  const out: StepShape[][] = [];
  let current: StepShape[] = [];
  let dirs = new Set<string>();
  const close = () => {
    for (let i = 0; current.length >= 2 && i < current.length; i += maxSteps) {
      const window = current.slice(i, i + maxSteps);
      if (window.length >= 2) out.push(window);
    }
    current = [];
    dirs = new Set();
  };
  for (const s of shapes) {
    const substantive = s.source.length > 0 && s.tests.length > 0;
    const sDirs = s.source.map((p) => posix.dirname(p));
    if (!substantive) {
      close();
      continue;
    }
    if (current.length > 0 && !sDirs.some((d) => dirs.has(d))) close();
    current.push(s);
    for (const d of sDirs) dirs.add(d);
  }
  close();
  return out;
}

export interface CandidateScan {
  candidates: Candidate[];
  /** First-parent commits looked at. */
  commits: number;
}

/** A `--path` as a repository-relative directory (`./pkg/` → `pkg`). */
export const repoDir = (p: string): string => p.replace(/^\.?\/+|\/+$/g, "");

/**
 * Whether every source file lies under one of `paths` (directories, `/`-separated; none = anywhere):
 * `--path` mines one subsystem, e.g. for tasks that share a directory (near session pairs).
 */
export function within(paths: readonly string[], files: readonly string[]): boolean {
  if (paths.length === 0) return true;
  const dirs = paths.map((p) => `${repoDir(p)}/`);
  return files.length > 0 && files.every((f) => dirs.some((d) => d === "/" || f.startsWith(d)));
}

/** Candidates of a history range (default: HEAD), oldest first: merged branches, then chains of commits. */
export async function findCandidates(
  gitDir: string,
  range: string,
  isSource: PathClass,
  isTest: PathClass,
  maxSteps: number,
  paths: readonly string[] = [],
): Promise<CandidateScan> {
  const mainline = await lines(gitDir, ["rev-list", "--reverse", "--first-parent", range]);
  const merges = new Set(await lines(gitDir, ["rev-list", "--first-parent", "--merges", range]));
  const candidates: Candidate[] = [];
  const plain: StepShape[] = [];
  for (const c of mainline) {
    if (merges.has(c)) {
      const m = await mergeCandidate(gitDir, c, isSource, isTest, maxSteps, paths);
      if (m && within(paths, m.sources)) candidates.push(m.candidate);
      plain.push({ commit: c, source: [], tests: [] });
      continue;
    }
    const parents = await lines(gitDir, ["rev-list", "--parents", "-n", "1", c]);
    if ((parents[0] ?? "").split(" ").length < 2) continue; // the root commit has no parent to diff against
    plain.push(await stepShape(gitDir, c, isSource, isTest));
  }
  for (const chain of chains(plain, maxSteps)) {
    if (
      !within(
        paths,
        chain.flatMap((s) => s.source),
      )
    )
      continue;
    const first = chain[0]!.commit;
    candidates.push({
      kind: "chain",
      base: (await gitOut(["--git-dir", gitDir, "rev-parse", `${first}^`])).trim(),
      cuts: chain.map((s) => s.commit),
      provenance: `chain of commits ${chain.map((s) => s.commit.slice(0, 12)).join(", ")}`,
    });
  }
  return { candidates, commits: mainline.length };
}

/**
 * Why the stages are several features rather than steps of one, or null. A subject that names a pull
 * request or an issue (`(#803)` of a squash merge, `Merge pull request #2094`, `fixes #772`) says which
 * change it belongs to; two stages naming disjoint numbers are two changes (two squash-merged pull
 * requests in a row, a release branch's merges), whose requests share nothing a user would say.
 */
export async function severalFeatures(gitDir: string, cuts: readonly string[]): Promise<string | null> {
  const named: Array<{ cut: string; refs: Set<string> }> = [];
  for (const cut of cuts) {
    const subject = await gitOut(["--git-dir", gitDir, "log", "-1", "--format=%s", cut]);
    const refs = new Set([...subject.matchAll(/#(\d+)\b/g)].map((m) => m[1]!));
    if (refs.size > 0) named.push({ cut, refs });
  }
  for (let i = 0; i < named.length; i++) {
    for (let j = i + 1; j < named.length; j++) {
      const [a, b] = [named[i]!, named[j]!];
      if (![...a.refs].some((r) => b.refs.has(r))) {
        return `stage commits ${a.cut.slice(0, 12)} and ${b.cut.slice(0, 12)} name different pull requests or issues (#${[...a.refs].join(", #")} / #${[...b.refs].join(", #")})`;
      }
    }
  }
  return null;
}

/**
 * For a chain (commits that merely follow each other): why a stage is unrelated to the stages before
 * it, or null. Each stage must change a source file an earlier stage changed; sharing a directory
 * is how a chain is found, not evidence of one feature.
 */
export async function unrelatedStage(
  gitDir: string,
  base: string,
  cuts: readonly string[],
  isSource: PathClass,
  isTest: PathClass,
): Promise<string | null> {
  const seen = new Set<string>();
  let from = base;
  for (const [k, cut] of cuts.entries()) {
    const files = (await changedPaths(gitDir, from, cut)).filter((p) => isSource(p) && !isTest(p));
    if (k > 0 && !files.some((f) => seen.has(f)))
      return `stage ${k + 1} (${cut.slice(0, 12)}) changes no source file an earlier stage changed`;
    for (const f of files) seen.add(f);
    from = cut;
  }
  return null;
}
