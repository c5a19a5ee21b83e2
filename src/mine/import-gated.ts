import type { TestRun } from "../testbed/test-run.js";
import { pytestSays, uncollected } from "./module-failures.js";
import type { StageVerdict, TestCode } from "./stage-tests.js";

/**
 * Why `id` was not collected in every run of the state before its stage (pytest's words), or null
 * when it was collected in one. Such a test's stage is where its module first imports: when that
 * import is a name the test does not use, its own behaviour may have arrived earlier. A run cannot
 * tell; the report lists it for a person to read.
 */
export function importGate(before: readonly TestRun[], id: string): string | null {
  if (!before.every((r) => uncollected(r, id))) return null;
  const module = id.split("::")[0]!;
  return pytestSays(before, module)?.replace(`${module} - `, "") ?? "its module was not collected";
}

/**
 * Of the tests mapped where their module first imports, those whose own code does not use the name
 * whose import failed before (`cannot import name 'two'`): their stage is the import's, and their own
 * behaviour may have arrived earlier. A test that uses the name, or another cause, is left out.
 */
export async function gatedByOthers(v: StageVerdict, python: string, code: TestCode): Promise<StageVerdict> {
  if (!v.ok || v.importGated.length === 0) return v;
  const sources = await code(
    python,
    v.importGated.map((g) => g.test),
  );
  const importGated = v.importGated.filter((g) => {
    const name = /cannot import name '(\w+)'/.exec(g.cause)?.[1];
    const src = sources.get(g.test);
    return name !== undefined && src !== undefined && !new RegExp(`\\b${name}\\b`).test(src);
  });
  return { ...v, importGated };
}
