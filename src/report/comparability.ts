import { inputError } from "../core/errors.js";
import { runFiles } from "../formats/run-layout.js";
import type { RunInput } from "./read-run.js";

/**
 * Averages and comparisons are meaningful only over runs of the same sessions file and the same dataset:
 * the first run whose digest differs from the first run's is refused, in one line naming both digests,
 * unless the caller allows mixed runs. An unknown dataset digest (an older run whose dataset is gone)
 * cannot be compared and is let through; the report shows it as unknown.
 */
export function assertComparable(runs: readonly RunInput[], allowMixed: boolean): void {
  if (allowMixed || runs.length < 2) return;
  const first = runs[0]!;
  for (const run of runs.slice(1)) {
    const fields = [
      ["sessions_file.sha256", "sessions file", first.digests.sessions, run.digests.sessions],
      ["dataset.sha256", "dataset", first.digests.dataset, run.digests.dataset],
    ] as const;
    for (const [field, what, a, b] of fields) {
      if (a !== null && b !== null && a !== b) {
        throw inputError(
          runFiles.config(run.runDir),
          field,
          `this run ran ${what} ${b}, ${first.runDir} ran ${a}: runs of different ${what}s are not averaged or compared (--allow-mixed to report them anyway)`,
        );
      }
    }
  }
}
