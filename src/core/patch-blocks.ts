import { closeSync, openSync, writeSync } from "node:fs";

/**
 * The one parser of a submitted patch: splits a unified diff into one block per file, each made of
 * the recognised lines only, so that a block can be checked, dropped, and the rest re-joined and
 * applied (binary `GIT binary patch` blocks, renames, mode changes and deletions round-trip exactly).
 *
 * The scanner is hunk-aware: inside a hunk it counts lines by the `@@ -a,b +c,d @@` header, so a
 * removed line that reads `--- x` is never mistaken for the next file's header.
 */

export interface PatchBlock {
  /** This file's section as applied: its recognised lines, byte for byte, line endings included. */
  text: string;
  /** Path before the change (`a/` side, prefix stripped), or null for a new file. */
  from: string | null;
  /** Path after the change, or null for a deletion. */
  to: string | null;
  /** Every path any header line of the block names (diff --git, ---/+++, rename/copy from/to). */
  paths: string[];
  /** Set when the block makes `to` a symbolic link: the link's target. */
  symlinkTarget?: string;
  binary: boolean;
  deleted: boolean;
}

/** One file's section: the ranges of the patch text it keeps (offsets, so a large patch is never copied). */
interface Draft {
  /** [start, end) pairs of kept lines, contiguous runs merged. */
  segs: number[];
  gitHeader: boolean;
  sawMinus: boolean;
  sawHunk: boolean;
}

/** The end of the line starting at `pos` (after its newline), and the end of its content (before `\r?\n`). */
function lineAt(text: string, pos: number): { end: number; bareEnd: number } {
  const nl = text.indexOf("\n", pos);
  if (nl < 0) return { end: text.length, bareEnd: text.length };
  return { end: nl + 1, bareEnd: nl > pos && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl };
}

const hunkHeader = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/** git's extended header lines, the only lines besides `---`/`+++` and hunks a block may hold. */
const extendedHeader =
  /^(?:index [0-9a-f]+\.\.[0-9a-f]+(?: [0-7]+)?|(?:old|new|deleted file|new file) mode [0-7]+|(?:copy|rename) (?:from|to) .+|(?:dis)?similarity index \d+%|Binary files .+ differ|GIT binary patch)$/;
/** Inside a `GIT binary patch`: a `literal`/`delta` size line, a base85 line, or the blank line that ends one. */
const binaryLine = /^(?:(?:literal|delta) \d+|[A-Za-z][0-9A-Za-z!#$%&()*+;<=>?@^_`{|}~-]+|)$/;
/** No header line is longer than this (a path is at most 4096 bytes); a longer line outside a hunk is never read as one. */
const maxHeaderLine = 16_384;

/** Inside a hunk: the line's kind by its first character ("" for an empty line, as git writes blank context). */
function hunkLineKind(text: string, pos: number, bareEnd: number): " " | "-" | "+" | "\\" | null {
  if (pos === bareEnd) return " ";
  const c = text[pos];
  return c === " " || c === "-" || c === "+" || c === "\\" ? c : null;
}

function keep(d: Draft, start: number, end: number): void {
  const n = d.segs.length;
  if (n > 0 && d.segs[n - 1] === start) d.segs[n - 1] = end;
  else d.segs.push(start, end);
}

/** What the one parser of a submitted patch read: the blocks, and the lines it read as no part of any. */
export interface ParsedPatch {
  blocks: PatchBlock[];
  /** Lines after the first file header that are neither a header of git's diff format nor a hunk line: never applied. */
  ignoredLines: number;
  /** The first of them: its 1-based line number and its first characters. */
  firstIgnored?: { line: number; text: string };
}

/**
 * The per-file blocks of a diff, each RE-SERIALISED from the lines the parser recognised (file and
 * extended headers, hunks counted by their headers, binary payloads); every other line is left out of
 * the block. What is applied is therefore exactly what was checked: no second parser (git apply, GNU
 * patch) can read a line this one did not (text after a hunk that GNU patch would take as another
 * patch, an `Index:` line, a context diff). Text before the first file header (a commit message) is
 * dropped.
 */
export function parsePatch(text: string): ParsedPatch {
  const drafts: Draft[] = [];
  const out: ParsedPatch = { blocks: [], ignoredLines: 0 };
  let cur: Draft | null = null;
  let remOld = 0;
  let remNew = 0;
  let afterHunkLine = false;
  let inBinary = false;
  let lineNo = 0;
  const ignore = (pos: number, bareEnd: number) => {
    out.ignoredLines++;
    out.firstIgnored ??= { line: lineNo, text: text.slice(pos, Math.min(bareEnd, pos + 80)) };
  };
  for (let pos = 0; pos < text.length;) {
    const { end, bareEnd } = lineAt(text, pos);
    const at = pos;
    pos = end;
    lineNo++;
    if (remOld > 0 || remNew > 0) {
      const kind = hunkLineKind(text, at, bareEnd);
      if (kind !== null) {
        if (kind !== "+" && kind !== "\\") remOld--;
        if (kind !== "-" && kind !== "\\") remNew--;
        keep(cur!, at, end);
        afterHunkLine = true;
        continue;
      }
      // A truncated hunk: fall through and read the line as a header.
      remOld = 0;
      remNew = 0;
    }
    const wasAfterHunk = afterHunkLine;
    afterHunkLine = false;
    if (cur && wasAfterHunk && text.charCodeAt(at) === 92) {
      // "\ No newline at end of file" right after a hunk's last line.
      keep(cur, at, end);
      continue;
    }
    if (bareEnd - at > maxHeaderLine) {
      if (cur) ignore(at, bareEnd);
      continue;
    }
    if (text.startsWith("diff --git ", at)) {
      cur = { segs: [at, end], gitHeader: true, sawMinus: false, sawHunk: false };
      drafts.push(cur);
      inBinary = false;
      continue;
    }
    if (text.startsWith("--- ", at) && end < text.length && text.startsWith("+++ ", end)) {
      if (!cur || cur.sawMinus || cur.sawHunk || !cur.gitHeader) {
        cur = { segs: [], gitHeader: false, sawMinus: false, sawHunk: false };
        drafts.push(cur);
      }
      cur.sawMinus = true;
      keep(cur, at, end);
      inBinary = false;
      continue;
    }
    if (!cur) continue;
    if (text.startsWith("+++ ", at) && cur.sawMinus && !cur.sawHunk) {
      keep(cur, at, end);
      continue;
    }
    const bare = text.slice(at, bareEnd);
    const m = bare.startsWith("@@ -") ? hunkHeader.exec(bare) : null;
    if (m && !inBinary) {
      remOld = m[1] === undefined ? 1 : Number(m[1]);
      remNew = m[2] === undefined ? 1 : Number(m[2]);
      cur.sawHunk = true;
      keep(cur, at, end);
      continue;
    }
    if (cur.gitHeader && !cur.sawHunk && (inBinary ? binaryLine.test(bare) : extendedHeader.test(bare))) {
      if (bare === "GIT binary patch") inBinary = true;
      keep(cur, at, end);
      continue;
    }
    ignore(at, bareEnd);
  }
  out.blocks = drafts.filter((d) => d.segs.length > 0).map((d) => toBlock(serialise(text, d)));
  return out;
}

/** A block's own text: its kept ranges (one slice, no copy, in the usual case of a clean patch). */
function serialise(text: string, d: Draft): string {
  if (d.segs.length === 2) return text.slice(d.segs[0], d.segs[1]);
  const parts: string[] = [];
  for (let i = 0; i < d.segs.length; i += 2) parts.push(text.slice(d.segs[i], d.segs[i + 1]));
  return parts.join("");
}

/** The blocks of a diff (parsePatch without its account of ignored lines). */
export function splitPatch(text: string): PatchBlock[] {
  return parsePatch(text).blocks;
}

/** Re-joins blocks into one patch text. */
export function joinBlocks(blocks: readonly PatchBlock[]): string {
  return blocks.map((b) => b.text).join("");
}

/** Writes blocks to a file one slice at a time: a large patch is never joined or encoded whole in memory. */
export function writeBlocks(file: string, blocks: readonly PatchBlock[]): void {
  const fd = openSync(file, "w");
  try {
    const chunk = 1 << 20;
    for (const b of blocks) for (let i = 0; i < b.text.length; i += chunk) writeSync(fd, b.text.slice(i, i + chunk));
  } finally {
    closeSync(fd);
  }
}

/** Undoes git's C-style quoting of a path ("a/t\303\251st\tx"). */
export function unquoteGitPath(raw: string): string {
  if (!raw.startsWith('"')) return raw;
  const body = raw.slice(1, raw.lastIndexOf('"') > 0 ? raw.lastIndexOf('"') : undefined);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch !== "\\") {
      bytes.push(...Buffer.from(ch, "utf8"));
      continue;
    }
    const n = body[++i];
    if (n === undefined) break;
    if (/[0-7]/.test(n)) {
      const oct = body.slice(i, i + 3);
      bytes.push(parseInt(oct, 8));
      i += 2;
    } else {
      const map: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '"': 34, "\\": 92 };
      bytes.push(map[n] ?? n.charCodeAt(0));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Strips the first path component, as `git apply` and `patch -p1` do; null for /dev/null. */
function stripOne(name: string): string | null {
  const n = unquoteGitPath(name.trim());
  if (n === "/dev/null") return null;
  // An absolute name is kept whole, so that path checks refuse it instead of reading it relative.
  if (n.startsWith("/")) return n;
  const slash = n.indexOf("/");
  return slash >= 0 ? n.slice(slash + 1) : n;
}

/** `--- a/x\t2020-01-01 ...` → `a/x` (a tab ends the name in traditional diffs). */
function headerName(rest: string): string {
  if (rest.startsWith('"')) return rest;
  const tab = rest.indexOf("\t");
  return tab >= 0 ? rest.slice(0, tab) : rest.replace(/\s+$/, "");
}

/** Splits `a/X b/Y` of a `diff --git` line; ambiguous unquoted names with spaces split at the middle. */
function gitLineNames(rest: string): [string, string] | null {
  if (rest.startsWith('"')) {
    const end = rest.indexOf('" ', 1);
    if (end < 0) return null;
    return [rest.slice(0, end + 1), rest.slice(end + 2)];
  }
  const mid = (rest.length - 1) / 2;
  if (Number.isInteger(mid) && rest[mid] === " " && rest.slice(2, mid) === rest.slice(mid + 3)) {
    return [rest.slice(0, mid), rest.slice(mid + 1)];
  }
  const at = rest.indexOf(" b/");
  if (at < 0) {
    const sp = rest.indexOf(" ");
    return sp < 0 ? null : [rest.slice(0, sp), rest.slice(sp + 1)];
  }
  return [rest.slice(0, at), rest.slice(at + 1)];
}

function toBlock(text: string): PatchBlock {
  const paths = new Set<string>();
  let from: string | null | undefined;
  let to: string | null | undefined;
  let gitFrom: string | null = null;
  let gitTo: string | null = null;
  let isNew = false;
  let deleted = false;
  let binary = false;
  let symlink = false;
  let symlinkTarget: string | undefined;
  let inHunk = false;
  const add = (p: string | null) => {
    if (p !== null) paths.add(p);
  };
  for (let pos = 0; pos < text.length;) {
    const { end, bareEnd } = lineAt(text, pos);
    const at = pos;
    pos = end;
    if (inHunk) {
      if (symlink && symlinkTarget === undefined && text[at] === "+") symlinkTarget = text.slice(at + 1, bareEnd);
      if (hunkLineKind(text, at, bareEnd) !== null) continue;
      inHunk = false;
    }
    // Only header lines are read as strings; hunk lines (nearly all of a large patch) never are.
    const bare = text.slice(at, bareEnd);
    if (bare.startsWith("@@ ")) {
      inHunk = true;
      continue;
    }
    if (bare.startsWith("diff --git ")) {
      const names = gitLineNames(bare.slice("diff --git ".length));
      if (names) {
        gitFrom = stripOne(names[0]);
        gitTo = stripOne(names[1]);
        add(gitFrom);
        add(gitTo);
      }
    } else if (bare.startsWith("--- ")) {
      from = stripOne(headerName(bare.slice(4)));
      add(from);
    } else if (bare.startsWith("+++ ")) {
      to = stripOne(headerName(bare.slice(4)));
      add(to);
    } else if (/^(rename|copy) from /.test(bare)) {
      from = unquoteGitPath(bare.replace(/^(rename|copy) from /, ""));
      add(from);
    } else if (/^(rename|copy) to /.test(bare)) {
      to = unquoteGitPath(bare.replace(/^(rename|copy) to /, ""));
      add(to);
    } else if (bare.startsWith("new file mode ")) {
      isNew = true;
      if (bare.endsWith("120000")) symlink = true;
    } else if (bare.startsWith("new mode ") || /^index [0-9a-f]+\.\.[0-9a-f]+ 120000$/.test(bare)) {
      // A link made, or a link whose target changes: either way the block writes a link.
      if (bare.endsWith("120000")) symlink = true;
    } else if (bare.startsWith("deleted file mode ")) {
      deleted = true;
    } else if (bare === "GIT binary patch" || /^Binary files .* differ$/.test(bare)) {
      binary = true;
    }
  }
  if (from === undefined) from = isNew ? null : gitFrom;
  if (to === undefined) to = deleted ? null : gitTo;
  if (isNew) from = null;
  if (deleted) to = null;
  return {
    text,
    from,
    to,
    paths: [...paths],
    ...(symlink && to !== null ? { symlinkTarget: symlinkTarget ?? "" } : {}),
    binary,
    deleted: deleted || to === null,
  };
}
