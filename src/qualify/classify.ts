import type { CaseOutcome } from "../testbed/junit-xml.js";

/** What one suite run said about one test; `absent` = not reported at all. */
export type RunOutcome = CaseOutcome | "absent";

/**
 * F2P: not passing in every run without the reference (failed, error or not collected), passing in
 * every run with it. P2P: passing in every run of both. unstable: runs of the same state disagree.
 * other: anything else (fails or is skipped with the reference, skipped without it).
 */
export type TestClass = "F2P" | "P2P" | "unstable" | "other";

/** Outcomes that mean the same thing for qualification: a test fails, errors or is not collected alike. */
function coarse(o: RunOutcome): "pass" | "skip" | "fail" {
  return o === "passed" ? "pass" : o === "skipped" ? "skip" : "fail";
}

function stable(outcomes: readonly RunOutcome[]): "pass" | "skip" | "fail" | null {
  const first = outcomes[0];
  if (first === undefined) return null;
  const c = coarse(first);
  return outcomes.every((o) => coarse(o) === c) ? c : null;
}

/** Classifies one test from its outcomes in the runs without (`before`) and with (`after`) the reference. */
export function classifyTest(before: readonly RunOutcome[], after: readonly RunOutcome[]): TestClass {
  const a = stable(before);
  const b = stable(after);
  if (a === null || b === null) return "unstable";
  if (b !== "pass") return "other";
  if (a === "pass") return "P2P";
  if (a === "fail") return "F2P";
  return "other";
}

export interface DeclaredLists {
  fail_to_pass: readonly string[];
  pass_to_pass: readonly string[];
}

export interface Comparison {
  /** Reasons the task does not qualify. */
  problems: string[];
  /** Differences between the declared lists and what was observed that do not disqualify. */
  differences: string[];
}

/**
 * Compares observed classes with the declared lists. A task qualifies when it has at least one
 * F2P test and every declared test is what it is declared to be: a declared F2P that passes
 * without the reference, a declared P2P that fails without it (the verifier would then score a
 * requirement no request states), or any declared test that is unstable, fails with the reference
 * or was never collected, disqualifies. Undeclared F2P tests and unstable undeclared tests are
 * reported as differences.
 */
export function compareWithDeclared(
  classes: ReadonlyMap<string, TestClass>,
  declared: DeclaredLists,
  describe: (id: string) => string,
): Comparison {
  const problems: string[] = [];
  const differences: string[] = [];
  const f2p = [...classes].filter(([, c]) => c === "F2P").map(([id]) => id);
  if (f2p.length === 0) problems.push("no fail-to-pass test: no test fails without the reference and passes with it");
  const declaredF2P = new Set(declared.fail_to_pass);
  const declaredAll = new Set([...declared.fail_to_pass, ...declared.pass_to_pass]);
  for (const id of declaredAll) {
    const c = classes.get(id);
    const kind = declaredF2P.has(id) ? "F2P" : "P2P";
    if (c === undefined) problems.push(`declared ${kind} ${id} was never collected`);
    else if (c === "unstable") problems.push(`declared ${kind} ${id} is unstable (${describe(id)})`);
    else if (c === "other") problems.push(`declared ${kind} ${id} does not pass with the reference (${describe(id)})`);
    else if (kind === "F2P" && c === "P2P") problems.push(`declared F2P ${id} already passes without the reference (it is P2P)`);
    else if (kind === "P2P" && c === "F2P") problems.push(`declared P2P ${id} fails without the reference (it is F2P)`);
  }
  for (const id of f2p) if (!declaredAll.has(id)) differences.push(`${id} is F2P but not declared`);
  const unstable = [...classes].filter(([id, c]) => c === "unstable" && !declaredAll.has(id)).map(([id]) => id);
  if (unstable.length > 0)
    differences.push(
      `${unstable.length} undeclared test(s) are unstable: ${unstable.slice(0, 10).join(", ")}${unstable.length > 10 ? ", ..." : ""}`,
    );
  return { problems, differences };
}

/**
 * The lists `--write` declares: F2P = every observed F2P test (declared ones first, in their
 * order, then new ones sorted); P2P = the declared tests (P2P or F2P) that are observed P2P. The
 * whole passing suite is deliberately not dumped into P2P: declared P2P tests are the ones a
 * dataset author chose as the guard against regressions, and a longer list only slows verification.
 */
export function rewrittenLists(
  classes: ReadonlyMap<string, TestClass>,
  declared: DeclaredLists,
): { fail_to_pass: string[]; pass_to_pass: string[] } {
  const isF2P = (id: string) => classes.get(id) === "F2P";
  const keptF2P = declared.fail_to_pass.filter(isF2P);
  const newF2P = [...classes]
    .filter(([id, c]) => c === "F2P" && !keptF2P.includes(id))
    .map(([id]) => id)
    .sort();
  const seen = new Set<string>();
  const p2p: string[] = [];
  for (const id of [...declared.pass_to_pass, ...declared.fail_to_pass]) {
    if (classes.get(id) === "P2P" && !seen.has(id)) {
      seen.add(id);
      p2p.push(id);
    }
  }
  return { fail_to_pass: [...keptF2P, ...newF2P], pass_to_pass: p2p };
}
