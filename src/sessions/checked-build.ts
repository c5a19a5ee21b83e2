import type { Dataset } from "../dataset/load.js";
import { buildSessions, type BuildOptions } from "./build.js";
import { checkSessions } from "./check.js";
import type { SessionsFile } from "../formats/sessions.js";

/**
 * Builds the sessions and runs the independent check on them. A violation is a builder bug, not bad
 * input: every command that builds sessions fails the same way (an internal error, exit 3).
 */
export function buildCheckedSessions(dataset: Dataset, opts: BuildOptions): SessionsFile {
  const file = buildSessions(dataset, opts);
  const violations = checkSessions(file, dataset);
  if (violations.length > 0) {
    const lines = violations.map((v) => `${v.session}: ${v.property}: ${v.message}`);
    throw new Error(`built sessions failed validation (a bug in the builder):\n${lines.join("\n")}`);
  }
  return file;
}
