/**
 * What pytest itself prints about the run as a whole (never test outcomes, which only the JUnit report
 * and our runner's channel give): a stop at collection, and requested ids that do not exist.
 */

/** pytest's "stopped at collection" line: `Interrupted: 1 error during collection`. */
export function collectionInterruption(output: string): string | null {
  const m = /Interrupted: (\d+ errors? during collection)/.exec(output);
  return m ? `Interrupted: ${m[1]}` : null;
}

/**
 * What pytest refused as not existing (it then exits 4 before running anything):
 * `ERROR: not found: /abs/tests/test_x.py::test_gone` (a missing parameter case is named by its
 * bare function) and `ERROR: file or directory not found: tests/test_y.py::test_q`.
 */
export function notFoundTargets(output: string): string[] {
  return [...output.matchAll(/^ERROR: (?:file or directory )?not found: (.+?)\s*$/gm)].map((m) => m[1]!);
}
