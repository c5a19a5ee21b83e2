import { isAbsolute } from "node:path";
import type { Group } from "./history.js";
import { extractRefs, fileSuffixKeys, normalizePath, pathKeys, withoutSourceRoot, workspaceHolding, type Refs } from "./refs.js";
import { addInto, termCounts, type TermVector } from "./similarity.js";

/**
 * The evidence the router has about each task, derived from the groups assigned to it (rebuilt from
 * the groups after a restart; never persisted): the files and modules its requests named and its
 * tools touched, the code symbols its requests named or its edits wrote, the stems of its files and
 * symbols (`balance_sheet` for `reports/balance_sheet.py`), and its vocabulary.
 */
export interface TaskProfile {
  keys: Map<string, number>;
  symbols: Map<string, number>;
  /** Identifier pieces of the task's files and symbols, for partial matches (`balance_sheet_to_csv`). */
  stems: Map<string, number>;
  /** Base names of the task's files (`diff` of util/diff.py): a name built on one of them points at the task. */
  modules: Map<string, number>;
  /** Top directories of the files its tools touched, below any source root, in lower case (`fonttools` of Lib/fontTools/x.py). */
  tops: Set<string>;
  terms: TermVector;
}

export interface RequestFeatures {
  refs: Refs;
  keys: string[];
  /** Sub-identifiers of the request's symbols (at least two pieces, or one long piece). */
  stems: string[];
  terms: TermVector;
  words: number;
  /** The request without its Repository/Workspace header. */
  body: string;
}

/** Removes the harness header lines (`Repository:`, `Workspace:`). */
export function withoutHeader(text: string): string {
  return text.replace(/^(Repository|Workspace):.*$/gm, "");
}

export function requestFeatures(text: string, workspaceHint: string | null = null): RequestFeatures {
  const refs = extractRefs(text, workspaceHint);
  const keys = [...new Set([...refs.paths].flatMap(pathKeys))];
  const body = withoutHeader(text);
  const stems = [...new Set([...refs.symbols].flatMap(symbolStems))];
  return { refs, keys, stems, terms: termCounts(body), words: body.split(/\s+/).filter(Boolean).length, body };
}

/**
 * Contiguous runs of an identifier's pieces that are meaningful on their own: `balance_sheet_to_csv`
 * gives `balance_sheet`, `sheet_to_csv`, …; a single piece counts when it has at least 6 letters.
 */
export function symbolStems(symbol: string): string[] {
  const pieces = symbol
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[_.]+/)
    .filter((p) => p.length > 0);
  const out = new Set<string>();
  for (let i = 0; i < pieces.length; i++) {
    if (pieces[i]!.length >= 6) out.add(pieces[i]!);
    for (let j = i + 2; j <= pieces.length; j++) out.add(pieces.slice(i, j).join("_"));
  }
  return [...out];
}

/**
 * The stems a symbol of a request is matched by: its stems, and its shorter single pieces (4–5
 * letters), which match only a module's name (`render_diff` and `format_diff` name the module
 * `diff.py`): a task's stems hold pieces that short only as the names of its files.
 */
export function matchStems(symbol: string): string[] {
  const short = symbol
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[_.]+/)
    .filter((p) => p.length >= 4 && p.length < 6);
  return [...new Set([...symbolStems(symbol), ...short])];
}

/** The stem of a file path: its base name without extension (`balance_sheet`, `diff`), when long enough. */
export function fileStems(path: string): string[] {
  const base = (path.split("/").pop() ?? path).replace(/\.[A-Za-z0-9]+$/, "");
  return base.length >= 4 && base !== "__init__" ? symbolStems(base).concat(base.toLowerCase()) : [];
}

/** Paths a tool call names: what the host reported, else the usual argument names. */
export function toolPaths(paths: string[] | undefined, args: unknown): string[] {
  if (paths && paths.length > 0) return paths;
  if (!args || typeof args !== "object") return [];
  const a = args as Record<string, unknown>;
  return ["filePath", "file_path", "path", "file", "filename"].flatMap((k) => (typeof a[k] === "string" ? [a[k]] : []));
}

/** Code an editing tool wrote (new text of edits and writes), where code symbols of a task show up. */
function writtenCode(args: unknown): string {
  if (!args || typeof args !== "object") return "";
  const a = args as Record<string, unknown>;
  return ["newString", "new_string", "content", "patchText", "patch"]
    .flatMap((k) => (typeof a[k] === "string" ? [a[k].slice(0, 20_000)] : []))
    .join("\n");
}

/** Definitions in written code: `def name`, `class Name`, `function name`, `const name =`. */
const definition = /\b(?:def|class|function|fn|func|interface|type|const|let|var)\s+([A-Za-z_][A-Za-z0-9_]{2,})/g;

/** Kinds of reference: path keys, symbols, stems, module (file base) names. */
type RefKind = "k" | "s" | "t" | "m";

export class RouterIndex {
  readonly profiles = new Map<string, TaskProfile>();
  /** Per group: how many of its actions were indexed (a group's request is indexed once). */
  private readonly seen = new Map<string, number>();
  /** In how many tasks each path key / symbol / stem occurs (for idf). */
  private readonly refTasks = new Map<string, Set<string>>();
  /** Document frequency of terms over indexed requests. */
  readonly df = new Map<string, number>();
  docs = 0;

  profile(task: string): TaskProfile {
    let p = this.profiles.get(task);
    if (!p) {
      p = { keys: new Map(), symbols: new Map(), stems: new Map(), modules: new Map(), tops: new Set(), terms: new Map() };
      this.profiles.set(task, p);
    }
    return p;
  }

  /** Adds what is new in a group (its request once, then actions as they arrive) to its task. */
  add(group: Group, task: string, workspace: string | null, features?: RequestFeatures): void {
    const p = this.profile(task);
    let counted = this.seen.get(group.id);
    if (counted === undefined) {
      const f = features ?? requestFeatures(group.userText, workspace);
      for (const k of f.keys) this.addRef(p.keys, "k", k, task);
      for (const s of f.refs.symbols) this.addSymbol(p, s, task);
      for (const k of f.refs.paths) this.addFile(p, k, task);
      addInto(p.terms, f.terms);
      for (const t of f.terms.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      this.docs++;
      counted = 0;
    }
    for (const a of group.actions.slice(counted)) if (a.kind === "tool") this.addTool(p, task, workspace, a.paths, a.args);
    this.seen.set(group.id, group.actions.length);
  }

  private addTool(p: TaskProfile, task: string, workspace: string | null, paths: string[] | undefined, args: unknown): void {
    const ws = workspace ? [workspace] : [];
    for (const raw of toolPaths(paths, args)) {
      const rel = normalizePath(raw, workspace && workspaceHolding(raw, ws) ? workspace : null);
      for (const k of [...pathKeys(rel), ...fileSuffixKeys(rel)]) this.addRef(p.keys, "k", k, task);
      const inPackage = (withoutSourceRoot(rel) ?? rel).split("/");
      if (inPackage.length >= 2 && !isAbsolute(rel)) p.tops.add(inPackage[0]!.toLowerCase());
      this.addFile(p, rel, task);
    }
    for (const m of writtenCode(args).matchAll(definition)) this.addSymbol(p, m[1]!, task);
  }

  private addSymbol(p: TaskProfile, symbol: string, task: string): void {
    this.addRef(p.symbols, "s", symbol, task);
    for (const st of symbolStems(symbol)) this.addRef(p.stems, "t", st, task);
  }

  private addFile(p: TaskProfile, path: string, task: string): void {
    const stems = fileStems(path);
    for (const st of stems) this.addRef(p.stems, "t", st, task);
    if (stems.length > 0) this.addRef(p.modules, "m", stems[stems.length - 1]!, task);
  }

  private addRef(map: Map<string, number>, kind: RefKind, ref: string, task: string): void {
    map.set(ref, (map.get(ref) ?? 0) + 1);
    const key = `${kind}:${ref}`;
    let s = this.refTasks.get(key);
    if (!s) this.refTasks.set(key, (s = new Set()));
    s.add(task);
  }

  /**
   * The project's top packages (lower case): top directories that the files of every task with files
   * lie under (`lark`, `fonttools`, `sympy`). A name of one (`Lark`, `fontTools`) tells no task apart.
   */
  topPackages(): Set<string> {
    const withFiles = [...this.profiles.values()].filter((p) => p.tops.size > 0);
    if (withFiles.length === 0) return new Set();
    return new Set([...withFiles[0]!.tops].filter((t) => withFiles.every((p) => p.tops.has(t))));
  }

  /** How many tasks hold a reference. */
  holders(kind: RefKind, ref: string): number {
    return this.refTasks.get(`${kind}:${ref}`)?.size ?? 0;
  }

  refIdf(kind: RefKind, ref: string): number {
    return Math.log1p(Math.max(1, this.profiles.size) / Math.max(1, this.holders(kind, ref)));
  }

  termIdf = (t: string): number => Math.log1p((this.docs + 1) / ((this.df.get(t) ?? 0) + 1));
}
