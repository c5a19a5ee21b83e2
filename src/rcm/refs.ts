import { isAbsolute, relative, sep } from "node:path";

/**
 * Explicit references of a text: the workspace it names, the files and the code symbols. These are
 * the strongest routing evidence: a request that names the workspace or a file of an earlier task
 * continues that task.
 */
export interface Refs {
  /** Absolute path on a `Workspace:` line (the harness message format), if any. */
  workspace: string | null;
  /** Normalized relative file paths (module paths `a.b.c` count as `a/b/c`). */
  paths: Set<string>;
  /** Code identifiers: backticked names, snake_case, CamelCase, calls `name(`. */
  symbols: Set<string>;
}

const workspaceLine = /^Workspace:[ \t]*(\S.*?)[ \t]*$/m;
const repositoryLine = /^Repository:[ \t]*(\S.*?)[ \t]*$/m;
/** a/b/c.ext, ./x.py, /abs/path.ts, plain name.ext with a known source extension. */
const sourceExtensions =
  "py|pyi|ts|tsx|js|jsx|mjs|cjs|json|toml|yaml|yml|md|rs|go|java|kt|c|h|cc|cpp|hpp|rb|php|cs|swift|sh|sql|html|css|txt|cfg|ini|csv|lock";
const pathToken = new RegExp(`(?:[\\w.@+-]*/)+[\\w.@+-]+|\\b[\\w-]+\\.(?:${sourceExtensions})\\b`, "g");
const fileExtension = new RegExp(`^(?:${sourceExtensions})$`);
const identifier = /\b(?:[A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]|[a-z]+(?:[A-Z][a-z0-9]+){1,}|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)\b/g;
const callName = /\b([A-Za-z_][A-Za-z0-9_]{2,})\(/g;
const dottedName = /\b[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*){1,}\b/g;
/**
 * Dotted names with a camelCase or capitalised part (`fontTools.otlLib.builder.buildPairPos`,
 * `IPython.core.completer`, `lark.visitors.Visitor`): module paths in other naming styles.
 */
const mixedDottedName = /\b[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+\b/g;
const url = /\b[a-z][a-z0-9+.-]*:\/\/[^\s`"'<>)\]]*/gi;
/** Common words that look like identifiers in prose. */
const notSymbols = new Set(["e.g", "i.e", "etc", "vs"]);

export function workspaceOf(text: string): string | null {
  const m = workspaceLine.exec(text);
  return m ? stripSlash(m[1]!) : null;
}

function stripSlash(p: string): string {
  return p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p;
}

/** A path as RCM compares it: relative to the workspace when under it, without `./`. */
export function normalizePath(p: string, workspace: string | null): string {
  let out = p.trim().replace(/^["'`(]+|["'`),.:;]+$/g, "");
  if (workspace && isAbsolute(out)) {
    const rel = relative(workspace, out);
    if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) out = rel.split(sep).join("/");
  }
  return out.replace(/^\.\//, "");
}

/** Which workspace (from a known list) holds an absolute path, or null. */
export function workspaceHolding(path: string, workspaces: Iterable<string>): string | null {
  if (!isAbsolute(path)) return null;
  let best: string | null = null;
  for (const ws of workspaces) {
    if ((path === ws || path.startsWith(`${ws}/`)) && (best === null || ws.length > best.length)) best = ws;
  }
  return best;
}

export function extractRefs(text: string, workspaceHint: string | null = null): Refs {
  const workspace = workspaceOf(text) ?? workspaceHint;
  // URLs name no file or symbol of the project (`https://example.com/a` is no path, `example.com` no module).
  const body = text.replace(workspaceLine, "").replace(repositoryLine, "").replace(url, " ");
  const paths = new Set<string>();
  const symbols = new Set<string>();
  for (const m of body.matchAll(pathToken)) {
    const p = normalizePath(m[0], workspace);
    if (p.length >= 3 && !/^https?:/.test(p) && !p.startsWith("//")) paths.add(p);
  }
  for (const span of codeSpans(body)) {
    const inner = span.trim();
    if (/^[A-Za-z_][\w.]*$/.test(inner)) addSymbol(symbols, paths, inner);
    // A command line (`ledgerkit register --since`): its words are names of the program and its commands.
    else if (/^[\w.-]+(?: [\w.=-]+)+$/.test(inner)) for (const w of inner.split(" ")) if (/^[A-Za-z_]\w{2,}$/.test(w)) symbols.add(w);
  }
  // Not the letters after an escape in a string literal (`"a\nThe b"` names no `nThe`).
  for (const m of body.matchAll(identifier)) if (body[m.index - 1] !== "\\") symbols.add(m[0]);
  // Nor a TeX command (`\left(` is no call of `left`).
  for (const m of body.matchAll(callName)) if (body[m.index - 1] !== "\\") symbols.add(m[1]!);
  for (const m of body.matchAll(dottedName)) addSymbol(symbols, paths, m[0]);
  for (const m of body.matchAll(mixedDottedName)) if (!/^[a-z0-9_.]+$/.test(m[0])) addMixedModule(symbols, paths, m[0]);
  return { workspace, paths, symbols };
}

/**
 * Inline code spans (`…`) of short length, paired in order on each line: a long span is skipped as a
 * whole, so the prose between two spans is never taken for one.
 */
function codeSpans(body: string): string[] {
  const out: string[] = [];
  for (const line of body.split("\n")) {
    const parts = line.split("`");
    // An odd part is inside backticks when a closing backtick follows it.
    for (let i = 1; i < parts.length - 1; i += 2) if (parts[i]!.length > 0 && parts[i]!.length <= 120) out.push(parts[i]!);
  }
  return out;
}

/** `pkg.mod.name` names both a module path and a symbol; plain names are symbols. */
function addSymbol(symbols: Set<string>, paths: Set<string>, name: string): void {
  if (notSymbols.has(name)) return;
  const parts = name.split(".");
  // `name.py` is a file name, already taken as a path.
  if (parts.length >= 2 && fileExtension.test(parts[parts.length - 1]!)) return;
  if (parts.length >= 2) {
    paths.add(parts.join("/"));
    const last = parts[parts.length - 1]!;
    // `pkg.mod.split_sentences` also names its module pkg/mod (the last part may be a function or class).
    if (parts.length >= 3 && /_|[A-Z]/.test(last)) paths.add(parts.slice(0, -1).join("/"));
    symbols.add(last);
    return;
  }
  if (name.length >= 3) symbols.add(name);
}

/**
 * A dotted name in any naming style: its module is its leading parts that start in lower case
 * (`fontTools.ttLib.tables.otTables` of `fontTools.ttLib.tables.otTables.DeltaSetIndexMap`), or a
 * capitalised first part followed by at least two such parts (`IPython.core.completer`; one part after
 * a class is a method: `TTFont.normalizeLocation`). At least two parts make a module path; the part
 * after the module (a class or function) is a symbol.
 */
function addMixedModule(symbols: Set<string>, paths: Set<string>, name: string): void {
  const parts = name.split(".");
  if (fileExtension.test(parts[parts.length - 1]!)) return;
  const lower = (x: string) => /^[a-z_]/.test(x);
  let k = 1;
  while (k < parts.length && lower(parts[k]!)) k++;
  if (!lower(parts[0]!) && k < 3) return;
  if (k < 2) return;
  // All parts lower-initial: the last one may be a function (`builder.buildPairPos`), so its module too.
  if (k === parts.length && /[A-Z_]/.test(parts[k - 1]!) && k >= 3) paths.add(parts.slice(0, k - 1).join("/"));
  paths.add(parts.slice(0, k).join("/"));
  symbols.add(parts[Math.min(k, parts.length - 1)]!);
}

/** A source root before a path's package (`src/`, `lib/`, `Lib/`, `hypothesis-python/src/`): checkouts differ in it, module names do not. */
const sourceRoot = /^(?:[^/]+\/)??(?:src|lib|Lib)\/(?=[^/]+\/)/;

/** A path without its source root (`Lib/fontTools/feaLib/builder.py` → `fontTools/feaLib/builder.py`), or null when it has none. */
export function withoutSourceRoot(p: string): string | null {
  const out = p.replace(sourceRoot, "");
  return out === p ? null : out;
}

/** Keys a path is matched by: the path itself, its module form without extension, both without a source root, its file name. */
export function pathKeys(p: string): string[] {
  const base = p.split("/").pop() ?? p;
  const keys = new Set<string>();
  for (const q of [p, withoutSourceRoot(p)]) if (q !== null) keys.add(q).add(q.replace(/\.[A-Za-z0-9]+$/, ""));
  if (base.includes(".") && base.length >= 5) keys.add(`name:${base}`);
  return [...keys];
}

/**
 * Keys a file a task's tools touched is matched by, besides pathKeys: the module paths inside its
 * package (`varLib/varStore` of `Lib/fontTools/varLib/varStore.py`), as requests name them relative to
 * any package (`fonttools varLib.varStore`). Two parts at least: a lone module name is a symbol's business.
 */
export function fileSuffixKeys(p: string): string[] {
  const parts = (withoutSourceRoot(p) ?? p).replace(/\.[A-Za-z0-9]+$/, "").split("/");
  const out: string[] = [];
  for (let i = 1; i + 2 <= parts.length; i++) out.push(parts.slice(i).join("/"));
  return out;
}
