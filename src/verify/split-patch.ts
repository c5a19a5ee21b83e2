import { closeSync, openSync, writeSync } from "node:fs";

/**
 * Splits a unified diff into one raw text block per file, without rewriting a byte, so that a
 * block can be dropped and the rest re-joined and applied (binary `GIT binary patch` blocks,
 * renames, mode changes and deletions round-trip exactly).
 *
 * The scanner is hunk-aware: inside a hunk it counts lines by the `@@ -a,b +c,d @@` header, so a
 * removed line that reads `--- x` is never mistaken for the next file's header.
 */

export interface PatchBlock {
  /** The raw text of this file's section, line endings included. */
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

/** One file's section: a contiguous range of the patch text (offsets, so a large patch is never copied). */
interface Draft {
  start: number;
  end: number;
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

/** Inside a hunk: the line's kind by its first character ("" for an empty line, as git writes blank context). */
function hunkLineKind(text: string, pos: number, bareEnd: number): " " | "-" | "+" | "\\" | null {
  if (pos === bareEnd) return " ";
  const c = text[pos];
  return c === " " || c === "-" || c === "+" || c === "\\" ? c : null;
}

/** The raw per-file blocks of a diff. Text before the first file header (a commit message) is dropped. */
export function splitPatch(text: string): PatchBlock[] {
  const drafts: Draft[] = [];
  let cur: Draft | null = null;
  let remOld = 0;
  let remNew = 0;
  for (let pos = 0; pos < text.length; ) {
    const { end, bareEnd } = lineAt(text, pos);
    const line = { pos, end };
    pos = end;
    if (remOld > 0 || remNew > 0) {
      const kind = hunkLineKind(text, line.pos, bareEnd);
      if (kind !== null) {
        if (kind !== "+" && kind !== "\\") remOld--;
        if (kind !== "-" && kind !== "\\") remNew--;
        cur!.end = end;
        continue;
      }
      // A truncated hunk: fall through and read the line as a header.
      remOld = 0;
      remNew = 0;
    }
    if (text.charCodeAt(line.pos) === 92) {
      // "\ No newline at end of file" right after a hunk's last line.
      if (cur) cur.end = end;
      continue;
    }
    if (text.startsWith("diff --git ", line.pos)) {
      cur = { start: line.pos, end, gitHeader: true, sawMinus: false, sawHunk: false };
      drafts.push(cur);
      continue;
    }
    if (text.startsWith("--- ", line.pos) && end < text.length && text.startsWith("+++ ", end)) {
      if (!cur || cur.sawMinus || cur.sawHunk || !cur.gitHeader) {
        cur = { start: line.pos, end, gitHeader: false, sawMinus: false, sawHunk: false };
        drafts.push(cur);
      }
      cur.sawMinus = true;
      cur.end = end;
      continue;
    }
    const m = cur && text.startsWith("@@ -", line.pos) ? hunkHeader.exec(text.slice(line.pos, bareEnd)) : null;
    if (m && cur) {
      remOld = m[1] === undefined ? 1 : Number(m[1]);
      remNew = m[2] === undefined ? 1 : Number(m[2]);
      cur.sawHunk = true;
      cur.end = end;
      continue;
    }
    if (cur) cur.end = end;
  }
  return drafts.map((d) => toBlock(text, d));
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

function toBlock(text: string, d: Draft): PatchBlock {
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
  for (let pos = d.start; pos < d.end; ) {
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
    text: text.slice(d.start, d.end),
    from,
    to,
    paths: [...paths],
    ...(symlink && to !== null ? { symlinkTarget: symlinkTarget ?? "" } : {}),
    binary,
    deleted: deleted || to === null,
  };
}
