import type { AuditFinding } from "../formats/audit.js";
import type { ManifestTask } from "../manifests/task-manifest.js";
import { inScope } from "../testbed/pytest-ids.js";
import { finding, listed } from "./finding.js";

/** Per test id, whether it passed at each state (0 = the base with tests.patch, k = after stage k). */
export type PassTable = ReadonlyMap<string, readonly boolean[]>;

/** The first state from which the test passes through the last one; null when it fails at the last. */
export function firstPassing(states: readonly boolean[]): number | null {
  if (states[states.length - 1] !== true) return null;
  let first = states.length - 1;
  while (first > 0 && states[first - 1] === true) first--;
  return first;
}

/**
 * What failing P2P ids say. Those whose module is not collected at the base are told apart: the usual
 * cause is an old test whose module imports what a stage adds (click's, rich's, hypothesis's), which
 * mining's rule makes neither F2P nor P2P; the others fail on behaviour.
 */
function p2pFailingWhat(failing: readonly string[], uncollectedAtBase: ReadonlySet<string>): string {
  const gated = failing.filter((id) => uncollectedAtBase.has(id)).length;
  const why =
    gated === 0
      ? ""
      : `; ${gated} of them only because their module cannot be collected there (an old test a stage's import gates is neither F2P nor P2P)`;
  return `${failing.length} declared P2P test(s) do not pass at the base: the verifier scores a requirement no request states${why}`;
}

/**
 * The run-test rules on a task's pass table: declared P2P failing at the base, declared F2P passing
 * there, and F2P first passing at another stage than the one they are mapped to. `uncollectedAtBase`:
 * the ids whose module is not collected at the base with tests.patch. Pure.
 */
export function judgeOutcomes(t: ManifestTask, passes: PassTable, uncollectedAtBase: ReadonlySet<string> = new Set()): AuditFinding[] {
  const out: AuditFinding[] = [];
  const at = (id: string) => passes.get(id);
  const p2pFailing = t.verifier.pass_to_pass.filter((id) => at(id)?.[0] !== true);
  if (p2pFailing.length > 0)
    out.push(finding("p2p-fails-at-base", null, p2pFailingWhat(p2pFailing, uncollectedAtBase), listed(p2pFailing)));
  const f2pPassing = t.verifier.fail_to_pass.filter((id) => at(id)?.[0] === true);
  if (f2pPassing.length > 0)
    out.push(
      finding(
        "f2p-elsewhere",
        null,
        `${f2pPassing.length} declared F2P test(s) already pass at the base: they measure nothing the requests ask`,
        listed(f2pPassing),
      ),
    );
  if (t.stages.length < 2) return out;
  t.stages.forEach((s, i) => {
    const moved = s.tests.flatMap((id) => {
      const first = firstPassing(at(id) ?? []);
      return first !== null && first > 0 && first !== i + 1 ? [`${id} first passes after stage ${first}`] : [];
    });
    if (moved.length > 0)
      out.push(
        finding("f2p-wrong-stage", i + 1, `${moved.length} F2P test(s) mapped to this stage first pass at another`, listed(moved, 3)),
      );
  });
  return out;
}

/**
 * The base's collection errors split by whose they are. A module that cannot be collected after the
 * last stage either, and holds no declared test, lacks something of the environment (an optional
 * dependency not installed: mining's failing modules, hypothesis's libcst codemods): the verifier
 * never runs it, so the base is not broken for the task. Every other one is the base's. Pure.
 */
export function baseCollectionErrors(
  atBase: readonly string[],
  afterLast: readonly string[],
  declared: readonly string[],
): { base: string[]; environment: string[] } {
  const environment = atBase.filter((scope) => afterLast.includes(scope) && !declared.some((id) => inScope(id, scope)));
  return { base: atBase.filter((scope) => !environment.includes(scope)), environment };
}
