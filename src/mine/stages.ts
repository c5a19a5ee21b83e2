import { stagePatchesOf, type PathClass } from "../manifests/derive.js";
import { pythonFold } from "./python-substance.js";
import { classifySteps, foldSteps, type FoldRule } from "./substance.js";

/** A step folded into a stage: the step's commit, why it is no stage, and the commit that ends the stage it joined. */
export interface FoldedStep {
  step: string;
  rule: FoldRule;
  /** Null when no step of the candidate is a stage. */
  into: string | null;
}

/**
 * The stages of a candidate: its substantive steps (src/mine/substance.ts), the others folded in.
 * Folding can leave a stage that changes nothing (a step and the later step that reverts it, joined);
 * the rule is applied again to the stages until every stage is substantive. Reads only diffs: no
 * test runs, so a candidate with fewer than two stages costs none.
 */
export async function substantiveStages(
  gitDir: string,
  base: string,
  steps: readonly string[],
  isSource: PathClass,
  isTest: PathClass,
): Promise<{ cuts: string[]; folded: FoldedStep[] }> {
  let cuts = [...steps];
  const folded: FoldedStep[] = [];
  for (;;) {
    const source = (p: string) => isSource(p) && !isTest(p);
    const classes = classifySteps(await stagePatchesOf(gitDir, base, cuts, isTest), source);
    // What the diff calls a change of behaviour, the syntax tree may call formatting or type hints.
    for (const [i, c] of classes.entries()) {
      if (!c.substantive) continue;
      const rule = await pythonFold(gitDir, base, i === 0 ? base : cuts[i - 1]!, cuts[i]!, source);
      if (rule !== null) classes[i] = { substantive: false, rule };
    }
    const { cuts: kept, endOf, folds } = foldSteps(classes);
    // Steps folded on an earlier pass follow the stage they joined.
    const at = (i: number | null) => (i === null ? null : cuts[i]!);
    const end = new Map(cuts.map((c, i) => [c, at(endOf[i]!)]));
    for (const f of folded) if (f.into !== null) f.into = end.get(f.into) ?? f.into;
    // A stage folded on a later pass is its steps (after the previous cut, to its own) not yet recorded.
    const recorded = new Set(folded.map((f) => f.step));
    for (const f of folds) {
      const from = f.step === 0 ? 0 : steps.indexOf(cuts[f.step - 1]!) + 1;
      for (const step of steps.slice(from, steps.indexOf(cuts[f.step]!) + 1))
        if (!recorded.has(step)) folded.push({ step, rule: f.rule, into: at(f.into) });
    }
    const next = kept.map((i) => cuts[i]!);
    if (folds.length === 0 || next.length === 0)
      return { cuts: next, folded: folded.sort((a, b) => steps.indexOf(a.step) - steps.indexOf(b.step)) };
    cuts = next;
  }
}
