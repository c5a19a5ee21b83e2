import parseDiff from "parse-diff";
import type { AuditFinding } from "../formats/audit.js";
import { classifySteps } from "../mine/substance.js";
import { privateNamesIn } from "../mine/writer-check.js";
import { finding, listed } from "./finding.js";

/** Methods only Python 2 calls: a stage that changes only these changes nothing on Python 3. */
const python2Methods = [
  "__nonzero__",
  "__unicode__",
  "__div__",
  "__rdiv__",
  "__idiv__",
  "__cmp__",
  "__getslice__",
  "__setslice__",
  "__delslice__",
  "__coerce__",
  "__long__",
  "__oct__",
  "__hex__",
];
const py2Def = new RegExp(`^(\\s*)def\\s+(?:${python2Methods.join("|")})\\s*\\(`);
const py2Name = new RegExp(`\\b(?:${python2Methods.join("|")})\\b`);
const importLine = /^\s*(?:from\s+\S+\s+)?import\s+/;

interface Line {
  type: "add" | "del" | "normal";
  text: string;
}

const hunksOf = (patch: string, isSource: (p: string) => boolean): Line[][] =>
  parseDiff(patch)
    .filter((f) => isSource((f.to && f.to !== "/dev/null" ? f.to : (f.from ?? "")).replace(/^[ab]\//, "")))
    .flatMap((f) => f.chunks.map((c) => c.changes.map((ch): Line => ({ type: ch.type, text: ch.content.slice(1) }))));

const meaningful = (l: Line) => l.type !== "normal" && l.text.trim() !== "" && !l.text.trim().startsWith("#");

/** Every changed line lies in a Python-2-only method (or names one: `__nonzero__ = __bool__`). */
function onlyPython2(hunks: Line[][]): boolean {
  let any = false;
  for (const hunk of hunks) {
    let inside: number | null = null;
    for (const l of hunk) {
      const indent = l.text.length - l.text.trimStart().length;
      const def = py2Def.exec(l.text);
      if (def) inside = def[1]!.length;
      else if (l.text.trim() !== "" && inside !== null && indent <= inside) inside = null;
      if (!meaningful(l)) continue;
      any = true;
      if (inside === null && !py2Name.test(l.text)) return false;
    }
  }
  return any;
}

/** Every changed line removes an import (an unused one, presumably; a re-export would be behaviour). */
function onlyImportRemovals(hunks: Line[][]): boolean {
  const changed = hunks.flat().filter(meaningful);
  return changed.length > 0 && changed.every((l) => l.type === "del" && importLine.test(l.text));
}

/**
 * `no-behaviour-stage` where a diff suffices: the mining substance rules (documentation, formatting,
 * typo fix), changes to Python-2-only methods, and import removals (a warning: a removed import may
 * have been a re-export). `patches` are the task's stage patches; authored stages are judged too.
 */
export function noBehaviourStages(patches: readonly string[], isSource: (p: string) => boolean): AuditFinding[] {
  const classes = classifySteps(patches, isSource);
  return patches.flatMap((patch, i): AuditFinding[] => {
    const c = classes[i]!;
    const k = i + 1;
    if (!c.substantive && !c.rule.startsWith("revert"))
      return [
        finding("no-behaviour-stage", k, `the stage changes no behaviour (${c.rule})`, `stage-${k}.patch read by the substance rules`),
      ];
    const hunks = hunksOf(patch, isSource);
    if (onlyPython2(hunks))
      return [
        finding(
          "no-behaviour-stage",
          k,
          "the stage changes only Python-2-only methods, which Python 3 never calls",
          listed(python2Methods.filter((m) => patch.includes(m))),
        ),
      ];
    if (onlyImportRemovals(hunks)) {
      const removed = hunks
        .flat()
        .filter(meaningful)
        .map((l) => l.text.trim());
      return [finding("no-behaviour-stage", k, "the stage only removes imports", listed(removed.map((r) => JSON.stringify(r))), "warning")];
    }
    return [];
  });
}

/** `x` ↔ `not x`, comparisons and booleans swapped: the line says the opposite. */
function inverts(before: string, after: string): boolean {
  const norm = (s: string) => s.replace(/\s+/g, " ").trim();
  const a = norm(before);
  const b = norm(after);
  const swaps: Array<[RegExp, string]> = [
    [/\bnot /g, ""],
    [/ is not /g, " is "],
    [/ not in /g, " in "],
    [/==/g, "!="],
    [/!=/g, "=="],
    [/\bTrue\b/g, "False"],
    [/\bFalse\b/g, "True"],
    [/>=/g, "<"],
    [/<=/g, ">"],
  ];
  return swaps.some(([re, to]) => re.test(a) && a.replace(re, to) === b) || swaps.some(([re, to]) => re.test(b) && b.replace(re, to) === a);
}

const indentOf = (text: string) => text.length - text.trimStart().length;

/**
 * The lines that replace the deleted line at `i`: the added lines right after its run of deleted lines.
 * Only they can say its opposite; an added line elsewhere in the hunk (a new helper's first line) is
 * another statement.
 */
function replacementOf(hunk: readonly Line[], i: number): Line[] {
  let j = i;
  while (j < hunk.length && hunk[j]!.type === "del") j++;
  const out: Line[] = [];
  for (; j < hunk.length && hunk[j]!.type === "add"; j++) out.push(hunk[j]!);
  return out;
}

/**
 * `authored-contradicted`, read from the patches: an authored stage that deletes, or turns into their
 * opposite, lines an upstream stage of the task added. `upstream` are the upstream stage patches;
 * `authored` the authored ones, numbered after them.
 */
export function contradictedUpstream(
  upstream: readonly string[],
  authored: readonly string[],
  isSource: (p: string) => boolean,
): AuditFinding[] {
  const added = new Set(
    upstream.flatMap((p) =>
      hunksOf(p, isSource)
        .flat()
        .filter((l) => l.type === "add" && l.text.trim() !== "")
        .map((l) => l.text.trim()),
    ),
  );
  return authored.flatMap((patch, j): AuditFinding[] => {
    const k = upstream.length + j + 1;
    const evidence: string[] = [];
    const hunks = hunksOf(patch, isSource);
    // A line moved (deleted here, added there, re-indented) is not taken back.
    const readded = new Set(
      hunks
        .flat()
        .filter((l) => l.type === "add")
        .map((l) => l.text.trim()),
    );
    for (const hunk of hunks) {
      const hunkAdds = hunk.some((l) => l.type === "add");
      hunk.forEach((d, i) => {
        // An import the stage's own edit left unused takes nothing back.
        if (d.type !== "del" || !added.has(d.text.trim()) || readded.has(d.text.trim()) || importLine.test(d.text)) return;
        const opposite = replacementOf(hunk, i).find((a) => indentOf(a.text) === indentOf(d.text) && inverts(d.text, a.text));
        if (opposite) evidence.push(`${JSON.stringify(d.text.trim())} becomes ${JSON.stringify(opposite.text.trim())}`);
        else if (!hunkAdds) evidence.push(`${JSON.stringify(d.text.trim())} deleted`);
      });
    }
    return evidence.length > 0
      ? [finding("authored-contradicted", k, "the authored stage takes back what an upstream stage of the task added", listed(evidence, 3))]
      : [];
  });
}

/** A test's own added lines in tests.patch: its `def` line and the deeper-indented lines after it. */
function addedTestBody(testsPatch: string, name: string): string[] {
  const lines = parseDiff(testsPatch).flatMap((f) =>
    f.chunks.flatMap((c) => c.changes.map((ch) => ({ add: ch.type === "add", text: ch.content.slice(1) }))),
  );
  const at = lines.findIndex((l) => l.add && new RegExp(`^\\s*(?:async\\s+)?def\\s+${name}\\s*\\(`).test(l.text));
  if (at < 0) return [];
  const indent = lines[at]!.text.length - lines[at]!.text.trimStart().length;
  const body: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (l.text.trim() !== "" && l.text.length - l.text.trimStart().length <= indent) break;
    if (l.add) body.push(l.text);
  }
  return body;
}

/**
 * `f2p-elsewhere` read from the patches: an F2P test whose own code uses a private name (`_name`) that
 * the task's stages define. It fails at the base because the name does not exist yet, so it measures
 * the name a request dictates, not behaviour a user asked for.
 */
export function privateTargets(
  stageTests: ReadonlyArray<readonly string[]>,
  stagePatches: readonly string[],
  testsPatch: string,
): AuditFinding[] {
  const defined = new Set(
    stagePatches.flatMap((p) =>
      parseDiff(p).flatMap((f) =>
        f.chunks.flatMap((c) =>
          c.changes
            .filter((ch) => ch.type === "add")
            .flatMap((ch) =>
              [...ch.content.matchAll(/(?:def|class)\s+(_[A-Za-z]\w*)|^\+\s*(?:self\.)?(_[A-Za-z]\w*)\s*=/g)].map((m) => m[1] ?? m[2]!),
            ),
        ),
      ),
    ),
  );
  return stageTests.flatMap((ids, i): AuditFinding[] => {
    const hits = ids.flatMap((id) => {
      const name = (id.split("::").pop() ?? "").replace(/\[.*$/, "");
      // `_name_` is a protocol hook a library documents (IPython's `_ipython_key_completions_`), not private.
      const used = privateNamesIn(addedTestBody(testsPatch, name)).filter((n) => defined.has(n) && !/^_[A-Za-z]\w*_$/.test(n));
      return used.length > 0 ? [`${id} uses ${used.join(", ")}`] : [];
    });
    return hits.length > 0
      ? [
          finding(
            "f2p-elsewhere",
            i + 1,
            `${hits.length} F2P test(s) use a private name the stages define: they measure an internal name, not behaviour`,
            listed(hits, 3),
          ),
        ]
      : [];
  });
}

/**
 * `repair-stage` (a warning): an upstream stage after the first whose every removed line was added by
 * an earlier stage of the task, and which adds no more lines than it removes: it repairs the
 * maintainer's own earlier step, so a solver who never made that mistake has nothing to do.
 */
export function repairStages(upstream: readonly string[], isSource: (p: string) => boolean): AuditFinding[] {
  const out: AuditFinding[] = [];
  const earlier = new Set<string>();
  upstream.forEach((patch, i) => {
    const lines = hunksOf(patch, isSource).flat().filter(meaningful);
    const removed = lines.filter((l) => l.type === "del").map((l) => l.text.trim());
    const added = lines.filter((l) => l.type === "add").map((l) => l.text.trim());
    if (i > 0 && removed.length > 0 && added.length <= removed.length && removed.every((l) => earlier.has(l))) {
      out.push(
        finding(
          "repair-stage",
          i + 1,
          "the stage only reworks lines an earlier stage of the task added",
          listed(
            removed.map((r) => JSON.stringify(r)),
            3,
          ),
        ),
      );
    }
    for (const a of added) earlier.add(a);
  });
  return out;
}
