import { fileURLToPath } from "node:url";
import { runProcess } from "../core/process.js";
import { changedPaths, type PathClass } from "../manifests/derive.js";
import { textAt } from "./python-substance.js";

const helper = fileURLToPath(new URL("../testbed/changed-definitions.py", import.meta.url));

/** How a step changes one module-level definition. */
type DefinitionChange = "added" | "changed" | "removed";

/**
 * The module-level functions and classes a step changes (`path::name` → how; src/testbed/changed-definitions.py,
 * this machine's python3), or null when a source file it changes is not Python or does not parse.
 */
async function changedDefinitions(
  gitDir: string,
  from: string,
  to: string,
  isSource: PathClass,
): Promise<Map<string, DefinitionChange> | null> {
  const paths = (await changedPaths(gitDir, from, to)).filter(isSource);
  if (!paths.every((p) => p.endsWith(".py"))) return null;
  const files = await Promise.all(
    paths.map(async (path) => ({ path, before: await textAt(gitDir, from, path), after: await textAt(gitDir, to, path) })),
  );
  const r = await runProcess("python3", ["-I", helper], {
    input: JSON.stringify(files),
    timeoutMs: 120_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" },
  });
  if (r.code !== 0) return null;
  const changes = JSON.parse(r.stdout) as Array<Record<string, DefinitionChange> | null>;
  if (changes.some((c) => c === null)) return null;
  return new Map(changes.flatMap((c, i) => Object.entries(c!).map(([name, how]) => [`${paths[i]!}::${name}`, how] as const)));
}

/**
 * For a chain: why a stage reworks older code the chain never touched instead of its own, or null. A
 * stage that changes (or removes) a module-level function or class that existed before it, and
 * changes none that an earlier stage changed, is another feature's work: commits that follow each
 * other in one file can be two features (more-itertools: a cache option for `remap`, then several
 * predicates for `partition`), which the shared-file rule lets through. A stage that only adds new
 * definitions may be the feature's next piece and is let through. Only Python is judged: when a
 * stage's source is not Python, does not parse, or changes no definition, the rule says nothing.
 */
export async function unrelatedDefinitions(
  gitDir: string,
  base: string,
  cuts: readonly string[],
  isSource: PathClass,
  isTest: PathClass,
): Promise<string | null> {
  const source = (p: string) => isSource(p) && !isTest(p);
  const stages: Array<Map<string, DefinitionChange>> = [];
  let from = base;
  for (const cut of cuts) {
    const defs = await changedDefinitions(gitDir, from, cut, source);
    if (defs === null || defs.size === 0) return null;
    stages.push(defs);
    from = cut;
  }
  const seen = new Set(stages[0]!.keys());
  for (let k = 1; k < stages.length; k++) {
    const defs = [...stages[k]!];
    const older = defs.filter(([, how]) => how !== "added").map(([name]) => name);
    if (older.length > 0 && !defs.some(([name]) => seen.has(name))) {
      return `stage ${k + 1} (${cuts[k]!.slice(0, 12)}) changes ${older.slice(0, 3).join(", ")}, older code no earlier stage changed, and none of ${[...seen].slice(0, 3).join(", ")}`;
    }
    for (const [name] of defs) seen.add(name);
  }
  return null;
}
