import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import parseDiff from "parse-diff";
import { splitPatch } from "../core/patch-blocks.js";
import { submissionFile } from "./message-templates.js";
import type { normalizationSteps } from "../formats/session-summary.js";

/**
 * `run --submission agent`: the agent submits the focus task's final patch as a file, as in the paper
 * (§3.4, B.4), and that file is the artifact. This module finds the file, reads it as hostile input,
 * and undoes the packaging an agent may wrap a patch in, without changing the patch itself
 * (docs/run-format.md, "Submission").
 */

/** Larger submissions are not read (far above any real patch). */
export const maxSubmissionBytes = 64 * 1024 * 1024;

type NormalizationStep = (typeof normalizationSteps)[number];

export type SubmissionResult =
  | { status: "submitted"; patch: string; normalized: NormalizationStep[] }
  | { status: "missing" | "unparsable"; detail: string; normalized: NormalizationStep[]; raw?: Buffer };

const headerLine = /^(diff --git |--- |\+\+\+ |@@ -)/m;
/** A markdown fence opening or closing (``` or ~~~, any info string). */
const fenceLine = /^(`{3,}|~{3,})[^\n]*$/;

/** The text before the first diff header: a packaging of the patch is looked for only there. */
function leadsWithDiff(text: string): boolean {
  const m = headerLine.exec(text);
  if (!m) return false;
  const before = text.slice(0, m.index);
  return !before.split("\n").some((l) => fenceLine.test(l) || /<patch>/.test(l));
}

/** A whole-file JSON string, or an object with one string field `patch`, `diff` or `model_patch` (null: not JSON). */
function unwrapJson(text: string): string | null {
  const t = text.trim();
  if (!t.startsWith('"') && !t.startsWith("{")) return null;
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch {
    return null;
  }
  if (typeof v === "string") return v;
  if (v && typeof v === "object") {
    for (const key of ["patch", "diff", "model_patch"]) {
      const field = (v as Record<string, unknown>)[key];
      if (typeof field === "string") return field;
    }
  }
  return null;
}

/** The contents of the fenced blocks that hold a diff, joined (null: none does). */
function unwrapFences(text: string): string | null {
  const lines = text.split("\n");
  const blocks: string[] = [];
  let open: { fence: string; body: string[] } | null = null;
  for (const line of lines) {
    const m = fenceLine.exec(line);
    if (open === null) {
      if (m) open = { fence: m[1]!, body: [] };
    } else if (/^(`{3,}|~{3,})\s*$/.test(line) && line[0] === open.fence[0] && line.trim().length >= open.fence.length) {
      blocks.push(open.body.join("\n"));
      open = null;
    } else open.body.push(line);
  }
  const diffs = blocks.filter((b) => headerLine.test(b)).map((b) => (b.endsWith("\n") ? b : `${b}\n`));
  return diffs.length > 0 ? diffs.join("") : null;
}

/** The contents of `<patch>…</patch>` (SWE-bench's packaging), joined (null: none). */
function unwrapTags(text: string): string | null {
  const out: string[] = [];
  for (const m of text.matchAll(/<patch>\n?([\s\S]*?)<\/patch>/g))
    if (headerLine.test(m[1]!)) out.push(m[1]!.endsWith("\n") ? m[1]! : `${m[1]!}\n`);
  return out.length > 0 ? out.join("") : null;
}

/** The two names of a `diff --git` line; unquoted names with spaces split at the middle, as git writes them (the same name twice). */
function gitNames(names: string): [string, string] | null {
  if (names.startsWith('"')) {
    const end = names.indexOf('" ');
    return end > 0 ? [names.slice(0, end + 1), names.slice(end + 2)] : null;
  }
  const mid = (names.length - 1) / 2;
  if (Number.isInteger(mid) && names[mid] === " ") return [names.slice(0, mid), names.slice(mid + 1)];
  const sp = names.indexOf(" ");
  return sp > 0 ? [names.slice(0, sp), names.slice(sp + 1)] : null;
}

/** `"x y"` → `"a/x y"`; `x` → `a/x`; /dev/null unchanged. */
function withPrefix(name: string, prefix: "a/" | "b/"): string {
  if (name === "/dev/null") return name;
  return name.startsWith('"') ? `"${prefix}${name.slice(1)}` : `${prefix}${name}`;
}

/** The file name of a `---`/`+++` header (a tab ends it in traditional diffs) and what follows it. */
function splitName(rest: string): [string, string] {
  if (rest.startsWith('"')) {
    const end = rest.indexOf('"', 1);
    return end < 0 ? [rest, ""] : [rest.slice(0, end + 1), rest.slice(end + 1)];
  }
  const tab = rest.indexOf("\t");
  return tab >= 0 ? [rest.slice(0, tab), rest.slice(tab)] : [rest, ""];
}

const bare = (n: string) => (n.startsWith('"') ? n.slice(1) : n);
const prefixed = (n: string, p: "a/" | "b/") => n === "/dev/null" || bare(n).startsWith(p);

/**
 * One file's block with `a/` `b/` prefixes on its header names when it had none (`git diff --no-prefix`,
 * hand-written `--- x` / `+++ x`). A block is taken as prefixed when its old name starts with `a/` and its
 * new name with `b/` (or is /dev/null); only header lines before the first hunk are touched.
 */
function prefixBlock(block: string): { text: string; changed: boolean } {
  const lines = block.split("\n");
  const firstHunk = lines.findIndex((l) => l.startsWith("@@ "));
  const headerEnd = firstHunk < 0 ? lines.length : firstHunk;
  const minus = lines.slice(0, headerEnd).find((l) => l.startsWith("--- "));
  const plus = lines.slice(0, headerEnd).find((l) => l.startsWith("+++ "));
  const git = lines.slice(0, headerEnd).find((l) => l.startsWith("diff --git "));
  const names = git === undefined ? null : gitNames(git.slice(11));
  let ok: boolean;
  if (minus !== undefined && plus !== undefined)
    ok = prefixed(splitName(minus.slice(4))[0], "a/") && prefixed(splitName(plus.slice(4))[0], "b/");
  else ok = names === null || (prefixed(names[0], "a/") && prefixed(names[1], "b/"));
  if (ok) return { text: block, changed: false };
  for (let i = 0; i < headerEnd; i++) {
    const l = lines[i]!;
    if (l.startsWith("--- ") || l.startsWith("+++ ")) {
      const [name, rest] = splitName(l.slice(4));
      lines[i] = `${l.slice(0, 4)}${withPrefix(name, l.startsWith("-") ? "a/" : "b/")}${rest}`;
    } else if (l.startsWith("diff --git ") && names) {
      lines[i] = `diff --git ${withPrefix(names[0], "a/")} ${withPrefix(names[1], "b/")}`;
    }
  }
  return { text: lines.join("\n"), changed: true };
}

/**
 * The patch inside what the agent wrote, in this order: a byte-order mark dropped; CRLF line ends made LF
 * when the diff's own header lines end in CRLF (a transport's doing: a patch of CRLF files has LF headers);
 * the patch taken out of a JSON string (or a `patch`/`diff`/`model_patch` field), of markdown fences or of
 * `<patch>` tags, each only when no diff header comes before the packaging; `a/` `b/` prefixes added to a
 * file whose names have none; a final newline added. Hunk lines are never edited otherwise. Pure.
 */
export function normalizeSubmission(raw: Buffer): SubmissionResult {
  const steps: NormalizationStep[] = [];
  let text = raw.toString("utf8");
  if (text.startsWith("\uFEFF")) {
    text = text.slice(1);
    steps.push("bom");
  }
  if (/^(diff --git |--- |\+\+\+ |@@ -|`{3,}|~{3,}).*\r$/m.test(text)) {
    text = text.replace(/\r\n/g, "\n");
    steps.push("crlf");
  }
  const json = unwrapJson(text);
  if (json !== null) {
    text = json;
    steps.push("json");
  }
  if (!leadsWithDiff(text)) {
    const fenced = unwrapFences(text);
    const tagged = fenced === null ? unwrapTags(text) : null;
    if (fenced !== null) {
      text = fenced;
      steps.push("fence");
    } else if (tagged !== null) {
      text = tagged;
      steps.push("tags");
    }
  }
  if (text.trim() === "") return { status: "unparsable", detail: "the submission is empty", normalized: steps, raw };
  if (!text.endsWith("\n")) {
    text += "\n";
    steps.push("trailing_newline");
  }
  const blocks = splitPatch(text);
  let files: ReturnType<typeof parseDiff>;
  try {
    files = parseDiff(text);
  } catch {
    files = [];
  }
  if (blocks.length === 0 || files.length === 0)
    return { status: "unparsable", detail: "the submission is not a unified diff (no file headers)", normalized: steps, raw };
  let changed = false;
  // Text before the first file header (a message) is kept: git apply and the verifier skip it.
  const lead = text.slice(0, text.indexOf(blocks[0]!.text));
  const out = blocks.map((b) => {
    const r = prefixBlock(b.text);
    changed ||= r.changed;
    return r.text;
  });
  if (changed) {
    text = lead + out.join("");
    steps.push("prefixes");
  }
  return { status: "submitted", patch: text, normalized: steps };
}

/**
 * Reads the submission the agent left at the root of the focus workspace (a host path). The workspace is
 * hostile: a symbolic link (to a file the harness could read) or anything but a regular file is refused,
 * and so is a file over maxSubmissionBytes.
 */
export function readSubmission(workspace: string): SubmissionResult {
  const file = join(workspace, submissionFile);
  const missing = (detail: string): SubmissionResult => ({ status: "missing", detail, normalized: [] });
  try {
    if (lstatSync(workspace).isSymbolicLink()) return missing("the workspace was replaced by a symbolic link");
  } catch {
    return missing("the workspace was deleted");
  }
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return missing(
      code === "ENOENT"
        ? `no ${submissionFile} in the workspace`
        : code === "ELOOP"
          ? `${submissionFile} is a symbolic link`
          : `${submissionFile} could not be read (${code ?? "error"})`,
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return missing(`${submissionFile} is not a regular file`);
    if (st.size > maxSubmissionBytes)
      return {
        status: "unparsable",
        detail: `${submissionFile} is ${st.size} bytes, over the limit of ${maxSubmissionBytes}`,
        normalized: [],
      };
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, buf, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    return normalizeSubmission(buf.subarray(0, got));
  } finally {
    closeSync(fd);
  }
}
