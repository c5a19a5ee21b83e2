import type { CaseOutcome } from "./junit-xml.js";

export interface SummaryLine {
  nodeId: string;
  outcome: CaseOutcome;
}

const summaryHeader = /^=+ short test summary info =+\s*$/;
const summaryWord = /^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED)\s+(\S.*?)\s*$/;

/** The node id at the start of `rest`; a parametrized id may hold spaces and " - " inside its brackets. */
function leadingNodeId(rest: string): string {
  const bracket = rest.indexOf("[");
  const space = rest.indexOf(" ");
  if (bracket >= 0 && (space < 0 || bracket < space)) {
    for (let i = bracket; i < rest.length; i++) {
      if (rest[i] === "]" && (i === rest.length - 1 || rest.startsWith(" - ", i + 1))) return rest.slice(0, i + 1);
    }
  }
  return space < 0 ? rest : rest.slice(0, space);
}

/**
 * The fallback reader: the `-rA` short test summary that pytest prints at the end of its output.
 * Only lines after the last summary header count (printed output before it cannot add results).
 * `SKIPPED [n] file:line: reason` lines carry no node id and are ignored; XFAIL counts as skipped.
 * Returns null when the output has no summary at all.
 */
export function parsePytestSummary(output: string): SummaryLine[] | null {
  const lines = output.split(/\r?\n/);
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (summaryHeader.test(lines[i]!)) {
      start = i + 1;
      break;
    }
  }
  if (start < 0) return null;
  const out: SummaryLine[] = [];
  for (const line of lines.slice(start)) {
    if (/^=+ .* =+\s*$/.test(line)) break;
    const m = summaryWord.exec(line);
    if (!m) continue;
    const word = m[1];
    const id = leadingNodeId(m[2]!);
    if (word === "SKIPPED" && id.startsWith("[")) continue;
    const outcome: CaseOutcome =
      word === "PASSED" || word === "XPASS" ? "passed" : word === "FAILED" ? "failed" : word === "ERROR" ? "error" : "skipped";
    out.push({ nodeId: id, outcome });
  }
  return out;
}

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
