import type { AuditFinding } from "../formats/audit.js";
import { sourceMatcher } from "../dataset/file-rules.js";
import { deriveTask } from "../manifests/materialize.js";
import { isAuthored, type ManifestRepo, type ManifestTask } from "../manifests/task-manifest.js";
import { pythonFold } from "../mine/python-substance.js";
import { finding } from "./finding.js";
import { contradictedUpstream, noBehaviourStages, privateTargets } from "./patch-checks.js";
import { textChecks } from "./text-checks.js";

/** Upstream stages the syntax tree finds changing no behaviour (docstrings, annotations, leftovers), beyond what the diff rules saw. */
async function syntaxTreeFolds(gitDir: string, repo: ManifestRepo, t: ManifestTask, seen: ReadonlySet<number>): Promise<AuditFinding[]> {
  const out: AuditFinding[] = [];
  const isSource = sourceMatcher(repo);
  let from = t.base;
  for (const [i, s] of t.stages.entries()) {
    if (isAuthored(s) || s.cut === undefined) break;
    const rule = seen.has(i + 1) ? null : await pythonFold(gitDir, t.base, from, s.cut, isSource);
    if (rule) out.push(finding("no-behaviour-stage", i + 1, `the stage changes no behaviour (${rule})`, `Python's syntax tree of each changed file, ${from.slice(0, 12)}..${s.cut.slice(0, 12)}`));
    from = s.cut;
  }
  return out;
}

/**
 * The static audit of one task: what the manifest decides alone and, when its repository was read
 * (`gitDir`), what the stage patches and tests.patch decide too. No test runs.
 */
export async function staticAudit(t: ManifestTask, repo: ManifestRepo, gitDir: string | null): Promise<AuditFinding[]> {
  if (gitDir === null) return textChecks(t, t.stages.map((s) => s.text ?? null));
  const d = await deriveTask(gitDir, repo, t);
  const isSource = sourceMatcher(repo);
  const findings = textChecks(t, d.spec.requests.map((r) => r.text));
  const noBehaviour = noBehaviourStages(d.stages, isSource);
  findings.push(...noBehaviour, ...(await syntaxTreeFolds(gitDir, repo, t, new Set(noBehaviour.map((f) => f.stage!)))));
  const upstream = t.stages.filter((s) => !isAuthored(s)).length;
  findings.push(...contradictedUpstream(d.stages.slice(0, upstream), d.stages.slice(upstream), isSource));
  const stageTests = t.stages.length === 1 ? [t.verifier.fail_to_pass] : t.stages.map((s) => s.tests);
  findings.push(...privateTargets(stageTests, d.stages, d.testsPatch));
  return findings;
}
