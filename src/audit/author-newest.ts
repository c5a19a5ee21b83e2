import parseDiff from "parse-diff";
import { passed, stateRun } from "./state-run.js";
import { finding, listed } from "./finding.js";
import { gitOut, gitTry } from "../core/git.js";
import type { Dataset, LoadedTask } from "../dataset/load.js";
import type { AuditFinding } from "../formats/audit.js";
import type { PreparedEnv } from "../testbed/env-cache.js";
import { authoredModules, type AuthoredPatches } from "./author-runs.js";

export interface NewestVerdict {
  /** The repository's newest commit (its HEAD). */
  commit: string;
  /** The contradiction found, or none. */
  findings: AuditFinding[];
  /** What was judged there, or why nothing was. */
  note: string;
}

const clean = (p: string | undefined): string => (p ?? "").replace(/^[ab]\//, "");

/**
 * Why the newest commit cannot judge the authored tests, or null when it can: it is the task's last
 * stage, it has not changed the files the patch touches since (the tests fail there by construction),
 * or it no longer has them or the lines the patch changes.
 */
async function notJudged(gitDir: string, lastCut: string, newest: string, patch: string): Promise<string | null> {
  if (newest === lastCut) return "it is the task's last stage";
  const deletedLines = (f: parseDiff.File) =>
    f.chunks.flatMap((c) => c.changes.filter((ch) => ch.type === "del").map((ch) => ch.content.slice(1).trim()));
  const files = parseDiff(patch)
    .filter((f) => !f.new)
    .map((f) => ({ path: clean(f.from), deleted: deletedLines(f) }));
  const paths = files.map((f) => f.path);
  const diff = paths.length > 0 ? await gitTry(["--git-dir", gitDir, "diff", "--quiet", lastCut, newest, "--", ...paths]) : null;
  const unchanged = diff?.code === 0;
  if (unchanged) return `it has not changed ${paths.join(", ")} since the task's last stage`;
  for (const f of files) {
    const r = await gitTry(["--git-dir", gitDir, "show", `${newest}:${f.path}`]);
    if (r.code !== 0) return `it no longer has ${f.path}`;
    const lines = new Set(r.stdout.split("\n").map((l) => l.trim()));
    const gone = f.deleted.find((l) => l !== "" && !lines.has(l));
    if (gone !== undefined) return `it no longer has the code the patch changes in ${f.path} (${JSON.stringify(gone)})`;
  }
  return null;
}

/**
 * `authored-contradicted` at the repository's newest commit: where that commit still has the code the
 * authored patch touches (and has changed it since the task), the authored tests must not fail there;
 * if they do, upstream decided otherwise. Only the authored tests are added at that commit.
 */
export interface NewestInput {
  dataset: Dataset;
  task: LoadedTask;
  env: PreparedEnv;
  work: string;
  gitDir: string;
  /** The commit that ends the task's last upstream stage. */
  lastCut: string;
  authored: AuthoredPatches;
  f2p: readonly string[];
  /** 1-based: the authored stage. */
  stage: number;
}

export async function newestCheck(i: NewestInput): Promise<NewestVerdict> {
  const { task, authored: a } = i;
  const commit = await gitOut(["--git-dir", i.gitDir, "rev-parse", "HEAD"]);
  const why = await notJudged(i.gitDir, i.lastCut, commit, a.patch);
  const at = `newest commit ${commit.slice(0, 12)}`;
  if (why !== null) return { commit, findings: [], note: `${at} not judged: ${why}` };
  const tests = [{ name: "authored-tests.patch", text: a.testsPatch }];
  const run = await stateRun(i.dataset, { ...task, base: commit }, i.env, i.work, "newest", tests, authoredModules(a.testsPatch));
  if (typeof run === "string") return { commit, findings: [], note: `${at} not judged: the authored tests cannot run there (${run})` };
  const failing = i.f2p.filter((id) => !passed(run, id));
  if (failing.length === 0) return { commit, findings: [], note: `${at}: the authored tests pass` };
  const what = `the authored tests fail at the repository's ${at}, which still has the code the patch touches: upstream decided otherwise`;
  const findings = [finding("authored-contradicted", i.stage, what, listed(failing))];
  return { commit, findings, note: `${at}: ${failing.length} authored test(s) fail` };
}
