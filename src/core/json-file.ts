import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, openSync, fsyncSync, closeSync } from "node:fs";
import { dirname, basename, join } from "node:path";
import type { z } from "zod";
import { firstProblems, InputError, inputError, zodProblems } from "./errors.js";

/** Reads a text file; a missing or unreadable file is an InputError naming the file. */
export function readTextFile(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw inputError(file, "", code === "ENOENT" ? "file not found" : `cannot read (${code ?? String(e)})`);
  }
}

/** Reads and parses a JSON file; a missing file or bad JSON is an InputError naming the file. */
export function readJson(file: string): unknown {
  return parseJsonText(file, readTextFile(file));
}

function parseJsonText(file: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw inputError(file, "", `not valid JSON (${(e as Error).message})`);
  }
}

/** Parses the text of `file` (already read) and checks it against its schema. */
export function parseJsonWith<S extends z.ZodType>(file: string, text: string, schema: S): z.output<S> {
  const parsed = schema.safeParse(parseJsonText(file, text));
  if (!parsed.success) {
    const problems = zodProblems(file, parsed.error);
    // A file of another format (or none) fails every field after it: its format is the one cause to read.
    const format = problems.findIndex((p) => p.path === "format");
    if (format >= 0)
      throw firstProblems([problems[format]!, ...problems.filter((_, i) => i !== format)], 1, "problems that follow from it");
    throw new InputError(problems);
  }
  return parsed.data;
}

/** Reads a JSON file and checks it against its schema; every problem is reported, not only the first. */
export function readJsonWith<S extends z.ZodType>(file: string, schema: S): z.output<S> {
  return parseJsonWith(file, readTextFile(file), schema);
}

/** Writes through a temporary file and a rename, so a reader (or a crash) never sees half a file. */
export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileSync(tmp, data);
    const fd = openSync(tmp, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    // A full disk (or any failure) leaves the previous file as it was, and no half-written file beside it.
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** Stable, human-readable JSON: two-space indent and a final newline. */
export function toJsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, toJsonText(value));
}
