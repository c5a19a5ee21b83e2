import { randomInt } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Verdict } from "../formats/verdict.js";
import { inScope } from "../testbed/pytest-ids.js";
import { requiredStatuses, type TestRun } from "../testbed/test-run.js";

/**
 * Planted canary tests: evidence about a test run from outside the test process. Code under test
 * runs in pytest's own interpreter and can change anything that process knows (our launcher's
 * globals, pytest's report machinery, the import system, each test's code before it runs), so a
 * forged run can agree with itself on every channel. It cannot agree with outcomes only the harness
 * knows. Before each run the verifier writes canaries into the held-out test files: copies of the
 * required tests themselves (src/verify/real-canaries.ts: a must-fail mutant with one expected value
 * changed, a must-pass exact twin) and, where a file has no test that can be copied so, the constant
 * pair built here (a must-pass and a must-fail assertion on values drawn now). A run that contradicts
 * them is not believed. Qualification and mining run the dataset's own patches and plant nothing.
 */

export interface Canary {
  /** pytest node id (`tests/test_x.py::test_word_word`). */
  id: string;
  file: string;
  expect: "passed" | "failed";
  /** The required test this one copies (a mutant or twin), by its required id; none for a constant canary. */
  of?: string;
}

const fallbackWords = ["value", "result", "input", "output", "case", "basic", "empty", "single", "default", "order"];

function pick<T>(xs: readonly T[]): T {
  return xs[randomInt(xs.length)]!;
}

export function shuffled<T>(xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Words of the file's test names (else its identifiers), so the planted names look like its own. */
function vocabulary(text: string): string[] {
  const words = new Set<string>();
  for (const m of text.matchAll(/^\s*def test_(\w+)\s*\(/gm)) for (const w of m[1]!.split("_")) if (/^[a-z]{2,14}$/.test(w)) words.add(w);
  if (words.size < 4)
    for (const m of text.matchAll(/\b[a-z]{3,12}\b/g))
      if (!/^(def|assert|import|from|return|class|self|for|and|not|none|true|false|with|lambda|pytest)$/.test(m[0])) words.add(m[0]);
  return words.size >= 3 ? [...words] : fallbackWords;
}

function nameFrom(words: readonly string[], taken: (n: string) => boolean): string {
  for (let i = 0; i < 200; i++) {
    const n = `test_${Array.from({ length: 2 + randomInt(2) }, () => pick(words)).join("_")}`;
    if (!taken(n)) return n;
  }
  return `test_${pick(words)}_${randomInt(1000, 10000)}`;
}

/** A body asserting a value computed from data drawn now; `wrong` asserts a value off by a few. */
function body(words: readonly string[], wrong: boolean): string {
  const off = wrong ? randomInt(1, 10) * (randomInt(2) === 0 ? -1 : 1) : 0;
  const shape = randomInt(3);
  if (shape === 0) {
    const values = Array.from({ length: 3 + randomInt(4) }, () => randomInt(2, 60));
    const k = randomInt(2, 9);
    const m = randomInt(23, 101);
    const want = values.reduce((s, v) => s + v * k, 0) % m;
    return `    values = [${values.join(", ")}]\n    result = sum(v * ${k} for v in values) % ${m}\n    assert result == ${want + off}\n`;
  }
  const picked = [...new Set(Array.from({ length: 3 + randomInt(3) }, () => pick(words)))];
  const list = `[${picked.map((w) => JSON.stringify(w)).join(", ")}]`;
  if (shape === 1) {
    const sep = pick(["-", " ", ", ", "/"]);
    const want = picked.reduce((s, w) => s + w.length, 0) + sep.length * (picked.length - 1);
    return `    words = ${list}\n    joined = ${JSON.stringify(sep)}.join(sorted(words))\n    assert len(joined) == ${want + off}\n`;
  }
  const k = randomInt(2, 7);
  const want = picked.reduce((s, w) => s + w.length * k, 0);
  return `    counts = {w: len(w) * ${k} for w in ${list}}\n    assert sum(counts.values()) == ${want + off}\n`;
}

/**
 * Line indices where a top-level test starts (its first decorator or comment, after a blank line, so
 * never between a multi-line decorator and its function); the end of the file too.
 */
function insertionPoints(lines: readonly string[]): number[] {
  const points: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    if ((i > 0 && lines[i - 1]!.trim() !== "") || !/^(@|#|def test_)/.test(lines[i]!)) continue;
    let j = i;
    while (j < lines.length && !/^(async\s+def|def|class)\s/.test(lines[j]!) && (j === i || lines[j]!.trim() !== "")) j++;
    if (j < lines.length && /^def test_\w*\s*\(/.test(lines[j]!)) points.push(i);
  }
  points.push(lines.length);
  return points;
}

/** Writes constant canaries of the given outcomes into one test file (a pair when both are asked for). */
export function plantConstantCanaries(
  checkout: string,
  file: string,
  expects: ReadonlyArray<"passed" | "failed">,
  form: ConstantCanaryForm = "function",
): Canary[] {
  const path = join(checkout, file);
  const text = readFileSync(path, "utf8");
  const words = vocabulary(text);
  const names: string[] = [];
  const taken = (n: string) => names.includes(n) || new RegExp(`\\b${n}\\b`).test(text);
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const planted = shuffled(expects).map((expect) => {
    const name = nameFrom(words, taken);
    names.push(name);
    if (form === "function") return { name, expect, id: name, code: `def ${name}():\n${body(words, expect === "failed")}` };
    // A runner that runs only TestCase methods (unittest) gets the same body in a class of its own.
    const cls = name.replace(/(^|_)([a-z])/g, (_m, _u: string, c: string) => c.toUpperCase());
    names.push(cls);
    const base = /^import unittest\s*$/m.test(text) ? "unittest.TestCase" : '__import__("unittest").TestCase';
    const method = body(words, expect === "failed").replace(/^(?=.)/gm, "    ");
    return { name, expect, id: `${cls}::${name}`, code: `class ${cls}(${base}):\n    def ${name}(self):\n${method}` };
  });
  // Insert from the last point backwards so that earlier indices stay valid.
  const at = planted.map(() => pick(insertionPoints(lines))).sort((a, b) => b - a);
  planted.forEach((c, i) => {
    const code = c.code.trimEnd().split("\n");
    lines.splice(at[i]!, 0, ...(at[i]! < lines.length ? [...code, "", ""] : ["", "", ...code]));
  });
  writeFileSync(path, `${lines.join("\n")}\n`);
  return planted.map((c) => ({ id: `${file}::${c.id}`, file, expect: c.expect }));
}

/** How a runner runs a planted test: a module-level function (pytest) or a TestCase method (unittest). */
export type ConstantCanaryForm = "function" | "method";

export type CanaryRecord = NonNullable<Verdict["canaries"]>;

/** Why a constant canary's outcome contradicts the harness, or null. */
function constantProblem(run: TestRun, c: Canary, got: string, requiredStatus: Readonly<Record<string, string>>): string | null {
  if (got === c.expect) return null;
  // A file that failed to collect (or whose ids pytest then said do not exist) runs none of its tests:
  // no evidence either way, and none of its required tests can pass.
  const fileErrored = run.collectionErrors.some((scope) => inScope(c.id, scope)) || run.notFound.includes(c.id);
  const filePassed = Object.entries(requiredStatus).some(([id, s]) => id.split("::")[0] === c.file && s === "passed");
  if ((got === "error" || got === "missing") && fileErrored && !filePassed) return null;
  return `planted test ${c.id} must have ${c.expect} but was ${got === "missing" ? "not reported" : `reported ${got}`}`;
}

/**
 * Why a copy of a required test contradicts its original's outcome, or null. Only a passing original
 * needs evidence (any other outcome leaves the task unresolved): then its mutant, whose expected value
 * differs, cannot pass, and its twin, the same body, must. A mutant that fails for another reason
 * (an error, a skip) is no contradiction.
 */
function copyProblem(run: TestRun, c: Canary, got: string, original: string | undefined): string | null {
  if (original !== "passed") return null;
  // pytest said the copy does not exist (a hook that generates parameters by function name): no evidence;
  // dropping copies on purpose takes telling them from their originals, which would then be missing too.
  if (got === "missing" && run.notFound.includes(c.id)) return null;
  const bad = c.expect === "failed" ? got === "passed" || got === "missing" : got !== "passed";
  if (!bad) return null;
  return `planted test ${c.id} must have ${c.expect} but was ${got === "missing" ? "not reported" : `reported ${got}`} (a ${c.expect === "failed" ? "mutant" : "twin"} of ${c.of}, which passed)`;
}

/** What the run said of the canaries, and why it contradicts the harness (empty: it does not). */
export function judgeCanaries(run: TestRun, canaries: readonly Canary[], requiredStatus: Readonly<Record<string, string>>): CanaryRecord {
  const seen = requiredStatuses(
    run,
    canaries.map((c) => c.id),
  );
  const problems: string[] = [];
  for (const c of canaries) {
    const got = seen[c.id]!;
    const problem = c.of === undefined ? constantProblem(run, c, got, requiredStatus) : copyProblem(run, c, got, requiredStatus[c.of]);
    if (problem !== null) problems.push(problem);
  }
  return {
    tests: canaries.map((c) => ({ id: c.id, expected: c.expect, reported: seen[c.id]!, ...(c.of !== undefined ? { of: c.of } : {}) })),
    trusted: problems.length === 0,
    ...(problems.length > 0 ? { problems } : {}),
  };
}

/** The run's reason to be distrusted by its canaries, or null. */
export function canaryReason(rec: CanaryRecord): string | null {
  if (rec.trusted) return null;
  const p = rec.problems ?? [];
  return `the run contradicts the tests the harness planted (outcomes only it knows): ${p.slice(0, 3).join("; ")}${p.length > 3 ? `; and ${p.length - 3} more` : ""}`;
}

/** The ids to run: the required ones and the canaries, in one shuffled selection (their place gives nothing away). */
export function selectionWith(required: readonly string[], canaries: readonly Canary[]): string[] {
  return shuffled([...required, ...canaries.map((c) => c.id)]);
}
