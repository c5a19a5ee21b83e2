import type { z } from "zod";

/** One thing wrong with one input, printed as `file: field path: what is wrong`. */
export interface Problem {
  file: string;
  path: string;
  message: string;
}

export function formatProblem(p: Problem): string {
  return p.path ? `${p.file}: ${p.path}: ${p.message}` : `${p.file}: ${p.message}`;
}

/** Bad input or bad usage: the CLI prints one line per problem and exits 2, never a stack trace. */
export class InputError extends Error {
  readonly problems: Problem[];
  /** `more`: problems left out (printed as one last line `… and N more ...`). */
  constructor(problems: Problem[] | Problem, more?: { count: number; why: string }) {
    const list = Array.isArray(problems) ? problems : [problems];
    // "1 more problem", not "1 more problems".
    const why = more?.count === 1 ? more.why.replace(/^problems\b/, "problem") : more?.why;
    const tail = more && more.count > 0 ? [`… and ${more.count} more ${why}`] : [];
    super([...list.map(formatProblem), ...tail].join("\n"));
    this.name = "InputError";
    this.problems = list;
  }
}

/**
 * Many problems of one input, most of them consequences of the first (a sessions file of another
 * dataset names none of its tasks): the first `keep` lines, then how many more, so the cause is read.
 */
export function firstProblems(problems: Problem[], keep: number, why = "problems"): InputError {
  return new InputError(problems.slice(0, keep), { count: problems.length - keep, why });
}

export function inputError(file: string, path: string, message: string): InputError {
  return new InputError({ file, path, message });
}

/** Renders a zod path the way people write field paths: `requests[2].text`. */
export function formatFieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

export function zodProblems(file: string, error: z.ZodError): Problem[] {
  return error.issues.map((issue) => ({
    file,
    path: formatFieldPath(issue.path),
    message: issue.message,
  }));
}
