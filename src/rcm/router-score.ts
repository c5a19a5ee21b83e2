import type { RequestFeatures, RouterIndex } from "./router-index.js";
import { pathKeys } from "./refs.js";
import { cosine, subjectTerms } from "./similarity.js";
import { matchStems } from "./router-index.js";

/** How much of a request one task explains. */
export interface TaskScore {
  task: string;
  /** idf-weighted references shared with the task (files and modules 3, symbols 2, partial symbols 1, one word in common 0.5). */
  ref: number;
  /** Share of the request's reference weight the task holds. */
  coverage: number;
  /** tf-idf cosine of the request with the task's requests. */
  sim: number;
  /** Files and symbols of the request that this task alone holds (each path and symbol counts once). */
  exclusive: number;
  /**
   * References of the request the task holds that are more than its modules: symbols other than a
   * module's name or a name built on one (`LatexPrinter` of latex.py). A request about another thing
   * in the same module shares only the module with the task.
   */
  specific: number;
  /** Files or modules of the request (paths) the task holds. */
  files: number;
  /** Names of the request (paths and symbols, partial matches included) the task holds: how many things, not their weight. */
  held: number;
  /** Of those, names of one capitalised word (`Tree`, `Console`): the project's API nouns, named in passing by reports of any subject. */
  nouns: number;
  /** Likeness of what the request says (its words besides the names it shares with the task) to the task's requests. */
  subject: number;
}

export interface RequestNovelty {
  /** Total reference weight of the request (files and modules 3, symbols 2). */
  weight: number;
  /** Share of that weight no task holds (a name sharing only one word with a task's names counts half). */
  unknown: number;
}

const keyWeight = 3;
/** Names of the languages' own types and exceptions: they say nothing about which task a request continues. */
const generic =
  /^(?:[A-Z]\w*(?:Error|Exception|Warning)|Decimal|datetime|date|Path|Optional|Any|None|True|False|self|cls|str|int|float|bool|dict|list|tuple|set|bytes|object|Promise|Array|Map|Set|Record|string|number|boolean|undefined|null)$/;

/**
 * The request's symbols that can tell tasks apart: not the languages' own names, and not the name of
 * the project's top package, in any case: the first segment of the paths it names (`ledgerkit` of
 * `ledgerkit/cli/x.py`), or a directory that every task's files lie under (`Lark` of lark/, `fontTools`
 * of Lib/fontTools/).
 */
export function telling(f: RequestFeatures, tops: ReadonlySet<string> = new Set()): string[] {
  const roots = new Set([...f.refs.paths].filter((p) => p.includes("/")).map((p) => p.split("/")[0]!));
  return [...f.refs.symbols].filter((s) => !generic.test(s) && !roots.has(s) && !tops.has(s.toLowerCase()));
}
const symbolWeight = 2;

export function requestWeight(f: RequestFeatures, tops: ReadonlySet<string> = new Set()): number {
  return keyWeight * f.keys.length + symbolWeight * telling(f, tops).length;
}

/** How much a partial match counts: a compound stem or a module's name fully, one word of a name half. */
function partialWeight(stem: string, isModule: boolean): number {
  return stem.includes("_") || isModule ? 1 : 0.5;
}

/** Scores every candidate task against a request. */
export function scoreTasks(index: RouterIndex, f: RequestFeatures, tasks: readonly string[]): TaskScore[] {
  const tops = index.topPackages();
  const weight = requestWeight(f, tops);
  const moduleNames = new Set([...f.refs.paths].map((p) => (p.split("/").pop() ?? p).replace(/\.\w+$/, "")));
  const subject = subjectLikeness(index, f, tasks);
  return tasks.map((task) => {
    const p = index.profile(task);
    let ref = 0;
    let covered = 0;
    let exclusive = 0;
    let specific = 0;
    let files = 0;
    let held = 0;
    let nouns = 0;
    const ofModule = (s: string) => moduleNames.has(s) || matchStems(s).some((st) => p.modules.has(st) || moduleNames.has(st));
    for (const path of f.refs.paths) {
      const keys = pathKeys(path).filter((k) => p.keys.has(k));
      for (const k of keys) ref += keyWeight * index.refIdf("k", k);
      covered += keyWeight * keys.length;
      if (keys.length > 0) files++;
      if (keys.length > 0) held++;
      if (keys.some((k) => index.holders("k", k) === 1)) exclusive++;
    }
    for (const s of telling(f, tops)) {
      if (p.symbols.has(s)) {
        ref += symbolWeight * index.refIdf("s", s);
        covered += symbolWeight;
        held++;
        if (/^[A-Z][a-z0-9]+$/.test(s)) nouns++;
        // `pkg.mod` names the module `mod` and the path pkg/mod: one thing, counted once.
        if (index.holders("s", s) === 1 && !moduleNames.has(s)) exclusive++;
        if (!ofModule(s)) specific++;
        continue;
      }
      // A new symbol built from the task's names (`balance_sheet_to_csv` in a balance-sheet task, or
      // `render_diff` in a task of diff.py); one word in common (`amount` of `format_amount` and
      // `parse_amount`) weighs half.
      const stems = matchStems(s).filter((st) => p.stems.has(st));
      if (stems.length === 0) continue;
      const best = Math.max(...stems.map((st) => partialWeight(st, p.modules.has(st)) * index.refIdf("t", st)));
      ref += best;
      held++;
      // Built from a compound name of the task's own (not a module's, not one word such as `printer`).
      if (stems.some((st) => st.includes("_") && !p.modules.has(st))) specific++;
      covered += Math.max(...stems.map((st) => partialWeight(st, p.modules.has(st))));
    }
    const coverage = weight === 0 ? 0 : Math.min(1, covered / weight);
    const sim = cosine(f.terms, p.terms, index.termIdf);
    return { task, ref, coverage, sim, exclusive, specific, files, held, nouns, subject: subject.get(task) ?? 0 };
  });
}

/**
 * Per task, the likeness of what a request says to what the task's requests said: words of the
 * request's names left out (files, modules, symbols; not a pair of words with a slash such as
 * `transpose/adjoint`), and the words every task holding one of its files uses (the module's own
 * vocabulary: "the markup renderer"), which tell none of them apart.
 */
function subjectLikeness(index: RouterIndex, f: RequestFeatures, tasks: readonly string[]): Map<string, number> {
  const names = [
    ...[...f.refs.paths].filter((p) => /\.\w+$/.test(p) || p.split("/").length > 2 || pathKeys(p).some((k) => index.holders("k", k) > 0)),
    ...f.refs.symbols,
  ];
  const holders = tasks.filter((t) => f.keys.some((k) => index.profile(t).keys.has(k)));
  const shared = new Set<string>();
  if (holders.length >= 2) {
    const vocab = holders.map((t) => new Set(subjectTerms(index.profile(t).terms, []).keys()));
    for (const w of vocab[0]!) if (vocab.every((v) => v.has(w))) shared.add(w);
  }
  const said = subjectTerms(f.terms, names, f.body, shared);
  // Subject words are singular: weigh one by the rarer of its two forms.
  const idf = (t: string) => Math.min(index.termIdf(t), index.termIdf(`${t}s`));
  return new Map(tasks.map((t) => [t, cosine(said, subjectTerms(index.profile(t).terms, names, "", shared), idf)]));
}

/** How much of what a request names is unknown to every task. */
export function requestNovelty(index: RouterIndex, f: RequestFeatures): RequestNovelty {
  const tops = index.topPackages();
  const weight = requestWeight(f, tops);
  if (weight === 0) return { weight, unknown: 0 };
  let unknown = 0;
  for (const k of f.keys) if (index.holders("k", k) === 0) unknown += keyWeight;
  for (const s of telling(f, tops)) {
    if (index.holders("s", s) > 0) continue;
    const known = matchStems(s).filter((st) => index.holders("t", st) > 0);
    // A name that shares only one word with a task's names (`format_amount` with `parse_amount`) is
    // half new; one built from a task's compound name or module name continues it.
    if (known.length === 0) unknown += symbolWeight;
    else unknown += symbolWeight * (1 - Math.max(...known.map((st) => partialWeight(st, index.holders("m", st) > 0))));
  }
  return { weight, unknown: unknown / weight };
}

/** A task's files (full paths) and telling symbols that at most one other task holds too. */
function pairRefs(index: RouterIndex, task: string): Set<string> {
  const p = index.profile(task);
  // A file counts once (its path with and without extension are one reference).
  const keys = [...p.keys.keys()]
    .filter((k) => !k.startsWith("name:") && index.holders("k", k) <= 2)
    .map((k) => `k:${k.replace(/\.[A-Za-z0-9]+$/, "")}`);
  const symbols = [...p.symbols.keys()].filter((s) => !generic.test(s) && s.length >= 4 && index.holders("s", s) <= 2).map((s) => `s:${s}`);
  return new Set([...keys, ...symbols]);
}

/**
 * How related two tasks are (0..1): 0 unless they share at least two files or symbols that no third
 * task holds (a name every task uses relates none of them; one shared file is common between
 * unrelated tasks); then the share of the smaller task's files and symbols the other holds too, or
 * the tf-idf likeness of their requests, whichever is higher. Wording alone never relates two tasks.
 */
export function taskRelatedness(index: RouterIndex, a: string, b: string): number {
  const ra = pairRefs(index, a);
  const rb = pairRefs(index, b);
  let shared = 0;
  for (const r of ra) if (rb.has(r)) shared++;
  if (shared < 2) return 0;
  return Math.max(shared / Math.min(ra.size, rb.size), cosine(index.profile(a).terms, index.profile(b).terms, index.termIdf));
}
