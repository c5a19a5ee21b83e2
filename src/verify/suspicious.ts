import { inflateSync } from "node:zlib";
import type { PatchBlock } from "../core/patch-blocks.js";

/**
 * In-process forgery (code under test rewriting pytest's reporting from inside its process) cannot
 * be excluded in general. What can be seen is an artifact that reaches for the means: the runner's
 * modules, exit handlers, a hard exit, the module table, builtins, the report, inherited file
 * descriptors, frame inspection, the launcher's own module (`__main__`), the import machinery, code
 * built at run time; and what the added lines hide: encoded blobs (base64, hex, zlib) above a size or
 * decoding to one of these signs, text spelt in `\x` escapes, decoded data that is executed. Binary
 * blocks are read through the lines git wrote (`written`), never through the artifact's own
 * attributes. Such a verdict is marked `suspicious` with these reasons; `report`
 * counts it apart and leaves it out of the resolved count unless `--trust-suspicious`. Pure.
 */

const signs: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b_pytest\b|\bpluggy\b/, "touches the test runner's modules (_pytest, pluggy)"],
  [/^\s*(import\s+pytest\b|from\s+pytest\b)|\bimportlib\.import_module\(\s*["']pytest/, "imports pytest from code under test"],
  [/\batexit\b/, "registers exit handlers (atexit)"],
  [/\bos\s*\.\s*_exit\b|\bposix\s*\.\s*_exit\b/, "ends the process with os._exit"],
  [/\bsys\s*\.\s*modules\b/, "changes the module table (sys.modules)"],
  [/\bbuiltins\b|__builtins__/, "touches builtins"],
  [/junit|xmlpath|report\.xml/i, "names the test report"],
  [/\/proc\/(self|\d+)\/fd|\bos\s*\.\s*(write|fdopen|dup2?)\s*\(\s*[3-9]\b|\bopen\s*\(\s*[3-9]\s*,/, "uses inherited file descriptors"],
  [
    /\bsys\s*\.\s*(settrace|setprofile|_getframe|addaudithook)\b|\bgc\s*\.\s*get_objects\b|\binspect\s*\.\s*stack\b/,
    "inspects the interpreter (frames, objects, hooks)",
  ],
  [/\bsetsid\b|start_new_session|\bos\s*\.\s*fork\b|\bnohup\b|\bdaemon(ize)?\s*\(/, "detaches processes from their group"],
  [
    /\bimport\s+__main__\b|\bfrom\s+__main__\s+import\b|["']__main__["']\s*\]/,
    "reaches the running program's own module (__main__: the launcher's state)",
  ],
  [/\bmeta_path\b|\bpath_hooks\b|\bexec_module\b|\bfind_spec\b|\.__class__\s*=/, "hooks the import machinery or swaps a module's class"],
  [
    /\bexec\s*\(|(?<![\w.])eval\s*\(|\b__import__\s*\(|\bmarshal\s*\.\s*loads\b/,
    "runs code built at run time (exec, eval, __import__, marshal)",
  ],
  [/\bgetattr\s*\([^,]+,\s*["'][^"']*["']\s*\+/, "builds the names it looks up from pieces (getattr of a concatenated name)"],
];

/** Decoders of hidden data; with exec/compile in the same file they run what they decode. */
const decoder =
  /\b(b64decode|b32decode|b16decode|a85decode|b85decode|decodebytes|unhexlify|fromhex|decompress)\s*\(|\bcodecs\s*\.\s*decode\b/;
const runner = /\bexec\s*\(|(?<![\w.])compile\s*\(|(?<![\w.])eval\s*\(|\b__import__\s*\(/;
/** Encoded literals at least this long are reported whatever they decode to. */
const blobChars = 200;
/**
 * Lines are scanned up to this many characters, and encoded runs decoded up to this many: the
 * patterns then never meet megabytes of input (a 20 MB run made V8's backtracking overflow its
 * stack), and a longer line is itself a reason.
 */
const maxScanChars = 64 * 1024;
const maxDecodeChars = 1024 * 1024;

const isHexChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const isB64Char = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 95 || c === 45;

function every(s: string, from: number, to: number, ok: (c: number) => boolean): boolean {
  for (let i = from; i < to; i++) if (!ok(s.charCodeAt(i))) return false;
  return true;
}

/** Runs of 40 or more characters of the base64/hex alphabet (`=` included), found by a plain loop (no pattern). */
function encodedRuns(line: string): string[] {
  const runs: string[] = [];
  let start = -1;
  for (let i = 0; i <= line.length; i++) {
    const c = i < line.length ? line.charCodeAt(i) : -1;
    if (c !== -1 && (isB64Char(c) || c === 61)) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start >= 40) runs.push(line.slice(start, Math.min(i, start + maxDecodeChars)));
    start = -1;
  }
  return runs;
}

/** What an encoded literal decodes to (zlib inflated when it is zlib), or null when it is not that encoding. */
function decodeLiteral(lit: string): string | null {
  let bytes: Buffer | null = null;
  let pad = lit.length;
  while (pad > 0 && lit.charCodeAt(pad - 1) === 61 && lit.length - pad < 2) pad--;
  if (pad === lit.length && every(lit, 0, lit.length, isHexChar) && lit.length % 2 === 0) bytes = Buffer.from(lit, "hex");
  else if (every(lit, 0, pad, isB64Char) && !every(lit, 0, pad, (c) => (c >= 97 && c <= 122) || c === 95))
    bytes = Buffer.from(lit, "base64");
  if (bytes === null || bytes.length === 0) return null;
  try {
    if (bytes[0] === 0x78) bytes = inflateSync(bytes);
  } catch {
    // not zlib after all
  }
  return bytes.toString("latin1");
}

/** A line's `\xNN` (and `\NNN`) escapes decoded, when it holds several of them. */
function unescapeLine(line: string): string | null {
  if ((line.match(/\\x[0-9a-fA-F]{2}|\\[0-7]{3}/g) ?? []).length < 8) return null;
  return line.replace(/\\x([0-9a-fA-F]{2})|\\([0-7]{3})/g, (_m, h: string | undefined, o: string | undefined) =>
    String.fromCharCode(parseInt(h ?? o!, h ? 16 : 8)),
  );
}

/**
 * Reasons found in what a file's added lines hide: encoded runs (base64, hex, zlib) above a size or
 * decoding to one of the signs, text spelt in `\x` escapes, and decoded data that is then executed.
 * Linear patterns only: an artifact's line may be megabytes long.
 */
function hiddenReasons(all: readonly string[], file: string, found: Map<string, string>, depth = 0): void {
  const lines = scannable(all, file, found);
  const text = lines.join("\n");
  if (decoder.test(text) && runner.test(text) && !found.has("executes data it decodes (exec/compile of base64, hex or zlib)"))
    found.set("executes data it decodes (exec/compile of base64, hex or zlib)", file);
  const hidden: string[] = [];
  for (const line of lines) {
    const escaped = unescapeLine(line);
    if (escaped !== null) {
      found.set("spells text in \\x escapes", file);
      hidden.push(escaped);
    }
    for (const run of encodedRuns(line)) {
      const decoded = decodeLiteral(run);
      if (decoded === null) continue;
      if (run.length >= blobChars)
        found.set(
          `embeds an encoded blob (${run.length >= maxDecodeChars ? "1 MB or more" : `${run.length} characters`} of base64 or hex)`,
          file,
        );
      hidden.push(decoded);
    }
  }
  if (hidden.length === 0) return;
  const inner = hidden.join("\n").split("\n");
  for (const [re, what] of signs)
    if (inner.some((l) => re.test(l)) && !found.has(`hides code that ${what}`)) found.set(`hides code that ${what}`, file);
  if (depth < 2) hiddenReasons(inner, file, found, depth + 1);
}

/** Each line cut to what the patterns read; a longer line is a reason of its own (it cannot be read whole). */
function scannable(lines: readonly string[], file: string, found: Map<string, string>): string[] {
  return lines.map((l) => {
    if (l.length <= maxScanChars) return l;
    if (!found.has("has a line too long to scan whole")) found.set("has a line too long to scan whole", file);
    return l.slice(0, maxScanChars);
  });
}

/** The added lines of a block, `+` included (text patches; a binary block's lines come from `written`). */
function addedLines(block: PatchBlock): string[] {
  if (block.binary) return [];
  return block.text.split("\n").filter((l) => l.startsWith("+") && !l.startsWith("+++ "));
}

/**
 * Reasons to distrust a pass, each with the first file that shows it; [] when nothing is seen. A line
 * the task's reference adds to the same file is not a sign: upstream code may legitimately use these
 * means (Python-Markdown's htmlparser.py installs a module copy in sys.modules), and the reference's
 * own lines can forge nothing.
 */
export function suspiciousReasons(
  blocks: readonly PatchBlock[],
  reference: readonly PatchBlock[] = [],
  written: ReadonlyMap<string, readonly string[]> = new Map(),
): string[] {
  const upstream = new Map<string, Set<string>>();
  const fileOf = (b: PatchBlock) => b.to ?? b.from ?? "?";
  for (const b of reference) {
    const set = upstream.get(fileOf(b)) ?? new Set<string>();
    for (const line of addedLines(b)) set.add(line.slice(1).trim());
    upstream.set(fileOf(b), set);
  }
  const found = new Map<string, string>();
  for (const b of blocks) {
    const file = fileOf(b);
    const added = [...addedLines(b).map((l) => l.slice(1)), ...(written.get(file) ?? [])].filter((l) => !upstream.get(file)?.has(l.trim()));
    const lines = scannable(added, file, found);
    for (const line of lines) for (const [re, what] of signs) if (!found.has(what) && re.test(line)) found.set(what, file);
    hiddenReasons(added, file, found);
    if (b.binary && /\.(so|pyd|dylib|pyc)$/.test(file)) found.set("adds a compiled module or native library", file);
  }
  return [...found].map(([what, file]) => `the artifact ${what} (${file})`);
}
