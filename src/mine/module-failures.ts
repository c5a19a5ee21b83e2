import { inScope } from "../testbed/pytest-ids.js";
import { collectionWords, isLoadError } from "../testbed/runner-words.js";
import type { TestRun } from "../testbed/test-run.js";
import type { FailingModule, StageVerdict } from "./stage-tests.js";

/** What a candidate's runs say of its test modules: outcomes per test, and pytest's words for what fails in every state. */

export type Outcome = "pass" | "fail" | "skip";

/** Not collected: no outcome of its own, its module (or directory) failed collection. */
export const uncollected = (run: TestRun, id: string) => !run.cases.has(id) && run.collectionErrors.some((s) => inScope(id, s));

export function outcomeIn(run: TestRun, id: string): Outcome {
  const o = run.cases.get(id) ?? (run.collectionErrors.some((s) => inScope(id, s)) ? "error" : undefined);
  return o === "passed" ? "pass" : o === "skipped" ? "skip" : "fail";
}

/**
 * pytest's own words for a failure, whole: a module's `ERROR collecting` section (src/testbed/runner-words.ts),
 * else the first `E   ` line of the test's section (`___ test_name ___`), else the short summary's
 * `FAILED id - message` (`-rA`), which pytest cuts to the terminal's width.
 */
export function pytestSays(runs: readonly TestRun[], id: string): string | null {
  const named = (s: string) => s === id || s.endsWith(`/${id}`);
  for (const r of runs) {
    if (!id.includes("::")) {
      const words = collectionWords(r.stdout, id);
      if (words) return `${id} - ${words}`;
      continue;
    }
    const lines = r.stdout.split("\n");
    const title = id.split("::").slice(1).join(".");
    const at = lines.findIndex((l) => new RegExp(`^_+ ${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} _+$`).test(l.trim()));
    const e = at < 0 ? undefined : lines.slice(at + 1).find((l) => /^E\s+\S/.test(l));
    if (e) return `${id} - ${e.replace(/^E\s+/, "").trim()}`;
    for (const line of lines) {
      const m = /^(?:FAILED|ERROR) (\S+) - (.*)$/.exec(line.trim());
      if (m && named(m[1]!)) return `${m[1]} - ${m[2]}`;
    }
  }
  return null;
}

/** Touched test modules (`modules`: the runner's) collected in no run of any state (no test of theirs reported), with pytest's words. */
function uncollectedModules(
  states: TestRun[][],
  modules: readonly string[],
  universe: ReadonlySet<string>,
): Array<{ module: string; words: string | null }> {
  const all = states.flat();
  if (all.length === 0) return [];
  return modules
    .filter((m) => all.every((r) => r.collectionErrors.includes(m)) && ![...universe].some((id) => id.split("::")[0] === m))
    .map((module) => ({ module, words: pytestSays(all, module) }));
}

/**
 * No F2P because the tests cannot be loaded here: touched modules that no state can import, with an
 * error of the interpreter or the packages (`cannot import name 'MutableSet' from 'collections'`),
 * not of a test. Said as such, in pytest's words, rather than as "no test fails and then passes".
 */
export function environmentVerdict(
  states: TestRun[][],
  modules: readonly string[],
  universe: ReadonlySet<string>,
  failing: FailingModule[],
): StageVerdict | null {
  const broken = uncollectedModules(states, modules, universe).filter((m) => m.words !== null && isLoadError(m.words));
  if (broken.length === 0) return null;
  const more = broken.length > 1 ? ` (and ${broken.length - 1} more module(s))` : "";
  return {
    ok: false,
    reason: "environment",
    detail: `the tests cannot be loaded in any state: ${broken[0]!.words}${more}`,
    failingModules: failing,
  };
}

/**
 * Touched test modules whose tests fail in every state: a module that is collected in no run (with
 * pytest's reason), or tests that fail in every run of every state (optional extensions missing, a
 * broken environment). They can be neither F2P nor P2P; the report says so.
 */
export function failingModules(states: TestRun[][], modules: readonly string[], universe: ReadonlySet<string>): FailingModule[] {
  const out: FailingModule[] = [];
  const all = states.flat();
  const never = new Map(uncollectedModules(states, modules, universe).map((m) => [m.module, m.words]));
  for (const module of modules) {
    const ids = [...universe].filter((id) => id.split("::")[0] === module);
    if (ids.length === 0) {
      if (never.has(module)) {
        const why = never.get(module);
        out.push({ module, reason: `cannot be collected in any state${why ? ` (pytest: ${why})` : ""}` });
      }
      continue;
    }
    const failing = ids.filter((id) => all.every((r) => outcomeIn(r, id) === "fail"));
    if (failing.length === 0) continue;
    const why = pytestSays(all, failing[0]!);
    out.push({ module, reason: `${failing.length} of ${ids.length} test(s) fail in every state${why ? ` (pytest: ${why})` : ""}` });
  }
  return out;
}
