import { inputError } from "../core/errors.js";
import type { ConfineBackend } from "./backend.js";
import { bwrapBackend } from "./bwrap.js";
import { noneBackend } from "./none.js";

/**
 * Every confinement backend by mode, the default first. To add one, write it in its own file (a
 * ConfineBackend) and list it here; nothing else names modes.
 */
const backends: ConfineBackend[] = [bwrapBackend, noneBackend];

/** Adds a backend at run time (a test double; the built-in ones are listed above). */
export function registerConfineBackend(backend: ConfineBackend): void {
  if (backends.some((b) => b.mode === backend.mode)) throw new Error(`confinement backend ${backend.mode} is registered already`);
  backends.push(backend);
}

/** Every backend, the default first (what `doctor` asks). */
export function confineBackends(): readonly ConfineBackend[] {
  return backends;
}

/** The `--sandbox` values, the default first. */
export function confineModes(): string[] {
  return backends.map((b) => b.mode);
}

/** The backend of a mode; bad input naming `where` (a flag, or a file and field) for an unknown one. */
export function confineBackend(mode: string, where: { file: string; path: string } = { file: "--sandbox", path: "" }): ConfineBackend {
  const b = backends.find((x) => x.mode === mode);
  if (!b) throw inputError(where.file, where.path, `unknown confinement "${mode}" (known: ${confineModes().join(", ")})`);
  return b;
}

/** What confines a run unless told otherwise. */
export function defaultConfineBackend(): ConfineBackend {
  return backends[0]!;
}

/** The default backend where it can confine on this machine, else nothing (test runs of the dataset's own history). */
export function confineWherePossible(): ConfineBackend {
  const b = defaultConfineBackend();
  return b.probe().problem === null ? b : noneBackend;
}
