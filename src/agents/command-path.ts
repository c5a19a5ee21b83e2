import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/** Shell words that are not programs; a command starting with one is not checked on PATH. */
const shellWords = new Set([
  "exec",
  "eval",
  "cd",
  "export",
  "set",
  "unset",
  "test",
  "[",
  "true",
  "false",
  ":",
  ".",
  "source",
  "echo",
  "printf",
  "read",
  "trap",
  "wait",
  "exit",
  "return",
  "shift",
  "command",
  "type",
  "ulimit",
  "umask",
  "if",
  "for",
  "while",
  "until",
  "case",
  "{",
  "(",
  "!",
  "time",
]);

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The program a shell command line starts, when it can be told without running a shell: leading
 * `NAME=value` assignments are skipped; simple quotes are removed. Null when the first word is a shell
 * builtin or keyword, or uses expansions (`$`, backquotes, globs), or is a path relative to the workspace.
 */
export function programOf(command: string): string | null {
  const words = command.trim().split(/\s+/);
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!)) i++;
  let word = words[i];
  if (word === undefined || word === "") return null;
  const quoted = /^'([^']*)'$|^"([^"$`\\]*)"$/.exec(word);
  if (quoted) word = quoted[1] ?? quoted[2] ?? "";
  if (word === "" || shellWords.has(word) || /[$`*?~'"\\;|&<>()]/.test(word)) return null;
  if (word.includes("/") && !isAbsolute(word)) return null;
  return word;
}

/** Where PATH finds a program (or the program itself when it is an absolute path), or null. */
export function resolveOnPath(program: string, pathEnv = process.env.PATH ?? ""): string | null {
  if (isAbsolute(program)) return isExecutableFile(program) ? program : null;
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}
