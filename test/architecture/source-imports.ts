import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { packageRoot } from "../../src/core/package-paths.js";

const src = join(packageRoot, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

/**
 * Every relative import of src/ (type-only imports and re-exports included: a type that runs in a circle is
 * still a circle to read) as [importing file, imported file], both relative to src/, `.js` as written.
 */
export function sourceImports(): Array<[string, string]> {
  const spec = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;
  return sourceFiles(src).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(spec)].map(
      (m) => [relative(src, file), normalize(join(relative(src, dirname(file)), m[1]!))] as [string, string],
    ),
  );
}

/** The import circles among the files under `folder` (relative to src/), each as the files in order, the first repeated last. */
export function importCycles(edges: ReadonlyArray<[string, string]>, folder: string): string[][] {
  const inside = (f: string) => f.startsWith(`${folder}/`);
  const next = new Map<string, string[]>();
  for (const [from, to] of edges) {
    const target = to.replace(/\.js$/, ".ts");
    if (!inside(from) || !inside(target)) continue;
    next.set(from, [...(next.get(from) ?? []), target]);
  }
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (f: string): void => {
    state.set(f, "open");
    path.push(f);
    for (const g of next.get(f) ?? []) {
      if (state.get(g) === "open") cycles.push([...path.slice(path.indexOf(g)), g]);
      else if (!state.has(g)) visit(g);
    }
    path.pop();
    state.set(f, "done");
  };
  for (const f of [...next.keys()].sort()) if (!state.has(f)) visit(f);
  return cycles;
}
