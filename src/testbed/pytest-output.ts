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
 * bare function), `ERROR: file or directory not found: tests/test_y.py::test_q`, and
 * `ERROR: found no collectors for /abs/tests/test_z.py::test_r`: an id whose module cannot be imported
 * (with --continue-on-collection-errors the module's error is reported, but an id named in it stops
 * the whole run). Such an id did not pass: it is missing, and the other ids must still run.
 */
export function notFoundTargets(output: string): string[] {
  return [...output.matchAll(/^ERROR: (?:(?:file or directory )?not found: |found no collectors for )(.+?)\s*$/gm)].map((m) => m[1]!);
}
