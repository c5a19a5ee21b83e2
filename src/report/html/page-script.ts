import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../core/package-paths.js";

/** Where tsc (tsconfig.page.json) writes the page script compiled from src/report/page/main.ts. */
export const pageScriptFile = join(packageRoot, "dist", "report-page", "report", "page", "main.js");

let cached: string | null = null;

/**
 * The report page's script, as compiled JavaScript to inline in a `<script type="module">`. Built by
 * `npm run build`; a checkout that was never built gets a clear error rather than a page without script.
 */
export function pageScript(): string {
  if (cached !== null) return cached;
  if (!existsSync(pageScriptFile)) throw new Error(`${pageScriptFile}: the report page script is not built (run npm run build)`);
  const text = readFileSync(pageScriptFile, "utf8");
  if (/<\/script|<!--/i.test(text)) throw new Error(`${pageScriptFile}: contains "</script" or "<!--" and cannot be inlined`);
  cached = text;
  return text;
}
