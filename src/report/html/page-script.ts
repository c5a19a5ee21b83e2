import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../core/package-paths.js";

/** Where tsc (tsconfig.page.json) writes the page script compiled from src/report/page/main.ts and its modules. */
export const pageScriptDir = join(packageRoot, "dist", "report-page", "report", "page");

let cached: string | null = null;

const importLine = /^import\s*\{[^}]*\}\s*from\s*"\.\/([\w-]+\.js)";[ \t]*$/gm;
const topLevelName = /^(?:export\s+)?(?:async\s+)?(?:function\*?|const|let|var|class)\s+([A-Za-z_$][\w$]*)/gm;

/**
 * The page is one inline `<script type="module">`, which cannot import its sibling modules, so the compiled
 * modules of src/report/page/ are joined here, dependencies first, under rules the page code keeps (and this
 * function enforces, failing the build's first report rather than shipping a broken page): modules import
 * only each other, with `import { a, b } from "./x.js";` on one line; top-level names are unique across them.
 * Type-only imports are gone after tsc.
 */
function joinModules(file: string, seen: Set<string>, names: Map<string, string>, out: string[]): void {
  if (seen.has(file)) return;
  seen.add(file);
  const path = join(pageScriptDir, file);
  if (!existsSync(path)) throw new Error(`${path}: the report page script is not built (run npm run build)`);
  const text = readFileSync(path, "utf8");
  for (const m of text.matchAll(importLine)) joinModules(m[1]!, seen, names, out);
  const body = text.replace(importLine, "").replace(/^export\s+(?=(?:async\s+)?(?:function|const|let|var|class)\b)/gm, "");
  const stray = /^\s*(?:import\b|export\b)/m.exec(body);
  if (stray)
    throw new Error(
      `${path}: "${body.slice(stray.index, stray.index + 60).trim()}": page modules import only "./x.js" siblings, one import per line`,
    );
  for (const m of body.matchAll(topLevelName)) {
    const other = names.get(m[1]!);
    if (other !== undefined) throw new Error(`${path}: top-level name ${m[1]} is also declared in ${other}`);
    names.set(m[1]!, file);
  }
  out.push(`// ${file}\n${body}`);
}

/**
 * The report page's script, as compiled JavaScript to inline in a `<script type="module">`. Built by
 * `npm run build`; a checkout that was never built gets a clear error rather than a page without script.
 */
export function pageScript(): string {
  if (cached !== null) return cached;
  const out: string[] = [];
  joinModules("main.js", new Set(), new Map(), out);
  const text = out.join("\n");
  if (/<\/script|<!--/i.test(text))
    throw new Error(`${pageScriptDir}: the page script contains "</script" or "<!--" and cannot be inlined`);
  cached = text;
  return text;
}
