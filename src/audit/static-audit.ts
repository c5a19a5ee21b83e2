import type { AuditFinding } from "../formats/audit.js";
import { sourceMatcher } from "../dataset/file-rules.js";
import { deriveTask } from "../manifests/materialize.js";
import { isAuthored, type ManifestRepo, type ManifestTask } from "../manifests/task-manifest.js";
import { pythonFold } from "../mine/python-substance.js";
import { finding, listed } from "./finding.js";
import { contradictedUpstream, noBehaviourStages, privateTargets, repairStages } from "./patch-checks.js";
import { severalFeatures, unrelatedStage } from "../mine/candidates.js";
import { stageCommits } from "../manifests/derive.js";
import { testFileMatcher } from "../dataset/file-rules.js";
import { textChecks } from "./text-checks.js";

/** Upstream stages the syntax tree finds changing no behaviour (docstrings, annotations, leftovers), beyond what the diff rules saw. */
async function syntaxTreeFolds(gitDir: string, repo: ManifestRepo, t: ManifestTask, seen: ReadonlySet<number>): Promise<AuditFinding[]> {
  const out: AuditFinding[] = [];
  const isSource = sourceMatcher(repo);
  let from = t.base;
  for (const [i, s] of t.stages.entries()) {
    if (isAuthored(s) || s.cut === undefined) break;
    const rule = seen.has(i + 1) ? null : await pythonFold(gitDir, t.base, from, s.cut, isSource);
    if (rule)
      out.push(
        finding(
          "no-behaviour-stage",
          i + 1,
          `the stage changes no behaviour (${rule})`,
          `Python's syntax tree of each changed file, ${from.slice(0, 12)}..${s.cut.slice(0, 12)}`,
        ),
      );
    from = s.cut;
  }
  return out;
}

/**
 * `several-features` on every step of the task (each commit of each upstream stage, not only the cuts)
 * and, for a chain of commits, a stage that shares no source file with the ones before: the mining
 * rules, which mining applied to the steps it kept.
 */
async function severalFeatureFindings(gitDir: string, repo: ManifestRepo, t: ManifestTask): Promise<AuditFinding[]> {
  const cuts = t.stages.flatMap((s) => (isAuthored(s) || s.cut === undefined ? [] : [s.cut]));
  const steps: string[] = [];
  let from = t.base;
  for (const cut of cuts) {
    steps.push(...(await stageCommits(gitDir, from, cut)));
    from = cut;
  }
  const out: AuditFinding[] = [];
  const several = await severalFeatures(gitDir, steps);
  if (several) out.push(finding("several-features", null, "the steps name different pull requests or issues", several));
  if (t.provenance.startsWith("chain of commits")) {
    const unrelated = await unrelatedStage(gitDir, t.base, cuts, sourceMatcher(repo), testFileMatcher(repo));
    if (unrelated)
      out.push(finding("several-features", null, "a stage of the chain shares no source file with the stages before", unrelated));
  }
  return out;
}

/**
 * The static audit of one task: what the manifest decides alone and, when its repository was read
 * (`gitDir`), what the stage patches and tests.patch decide too. No test runs.
 */
export async function staticAudit(t: ManifestTask, repo: ManifestRepo, gitDir: string | null): Promise<AuditFinding[]> {
  if (gitDir === null)
    return textChecks(
      t,
      t.stages.map((s) => s.text ?? null),
    );
  const d = await deriveTask(gitDir, repo, t).catch((e: Error) => e.message.split("\n")[0]!);
  // A task the repository cannot give is judged on its manifest alone, and says why.
  if (typeof d === "string")
    return [
      ...textChecks(
        t,
        t.stages.map((s) => s.text ?? null),
      ),
      finding("env-failure", null, "the task cannot be derived from the repository given with --repo", d),
    ];
  if (d.mismatches.length > 0)
    return [
      ...textChecks(
        t,
        t.stages.map((s) => s.text ?? null),
      ),
      finding("env-failure", null, "the repository does not give the patches the manifest records", listed(d.mismatches, 3)),
    ];
  const isSource = sourceMatcher(repo);
  const findings = textChecks(
    t,
    d.spec.requests.map((r) => r.text),
  );
  const noBehaviour = noBehaviourStages(d.stages, isSource);
  findings.push(...noBehaviour, ...(await syntaxTreeFolds(gitDir, repo, t, new Set(noBehaviour.map((f) => f.stage!)))));
  const upstream = t.stages.filter((s) => !isAuthored(s)).length;
  findings.push(
    ...contradictedUpstream(d.stages.slice(0, upstream), d.stages.slice(upstream), isSource),
    ...repairStages(d.stages.slice(0, upstream), isSource),
  );
  findings.push(...(await severalFeatureFindings(gitDir, repo, t)));
  const stageTests = t.stages.length === 1 ? [t.verifier.fail_to_pass] : t.stages.map((s) => s.tests);
  findings.push(...privateTargets(stageTests, d.stages, d.testsPatch));
  return findings;
}
