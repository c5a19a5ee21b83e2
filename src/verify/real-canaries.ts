import { lstatSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runProcess } from "../core/process.js";
import { plantConstantCanaries, shuffled, type Canary, type ConstantCanaryForm } from "./canaries.js";

/**
 * Canaries made of the required tests themselves, so that telling one from a required test takes
 * knowing the right answer. Code under test that inspects each test before it runs (its bytecode, the
 * file's syntax tree) and empties the ones that call the repository empties these too: a must-fail
 * MUTANT of a required test (its body with one expected value changed, or one assertion negated) then
 * passes beside its passing original, and the run is not believed. A must-pass TWIN (an exact copy of
 * a pass-to-pass test) catches a run that forges passes for known test names only. Each copy sits next
 * to its original with a name from the file's own test words, and half the time it takes the
 * original's name while the original runs under the new one (the harness maps the ids back). The
 * surgery is src/testbed/canary-tests.py, run by the tests' interpreter (`-I -S`, stdlib only) on the
 * held-out test files as the harness wrote them, before the run; nothing of the checkout is imported.
 * A file where no test can be copied so gets the constant canaries of canaries.ts instead.
 */

export interface Planting {
  canaries: Canary[];
  /** The id each required test runs under (itself unless a copy took its name). */
  runIds: ReadonlyMap<string, string>;
  /** One line for the verify log per file (what was planted, or why only constants). */
  notes: string[];
  /** Writes back the files as they were before planting (for a second run with fresh canaries). */
  restore: () => void;
}

interface PlantedCopy {
  kind: "mutant" | "twin";
  of: string;
  as: string;
  original_as: string;
}

interface HelperFile {
  path: string;
  text: string | null;
  planted: PlantedCopy[];
}

const helper = fileURLToPath(new URL("../testbed/canary-tests.py", import.meta.url));
/** At most this many test files get canaries (the files of the required tests, drawn at random). */
const maxFiles = 5;

/** `file`, the test's key within it (`Class::test_f`), and its parameter suffix (`[1-2]`, or ""). */
function splitTestId(id: string): { file: string; key: string; params: string } {
  const at = id.indexOf("::");
  const file = id.slice(0, at);
  const rest = id.slice(at + 2);
  const bracket = rest.indexOf("[");
  return bracket < 0 ? { file, key: rest, params: "" } : { file, key: rest.slice(0, bracket), params: rest.slice(bracket) };
}

/** A regular file (not a link) whose bytes are UTF-8: only such a file is rewritten exactly. */
function plantable(path: string): boolean {
  try {
    if (!lstatSync(path).isFile()) return false;
    const raw = readFileSync(path);
    return Buffer.from(raw.toString("utf8"), "utf8").equals(raw);
  } catch {
    return false;
  }
}

async function runHelper(python: string, request: unknown): Promise<HelperFile[] | string> {
  const r = await runProcess(python, ["-I", "-S", helper], {
    input: JSON.stringify(request),
    timeoutMs: 60_000,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" },
  });
  if (r.code !== 0) return `${python} canary-tests.py: exit ${r.code ?? r.signal}: ${r.stderr.trim().slice(-300)}`;
  try {
    return JSON.parse(r.stdout) as HelperFile[];
  } catch (e) {
    return `canary-tests.py: unreadable answer (${(e as Error).message})`;
  }
}

/** The canaries of one file's copies, and the run ids of the required tests they shadow. */
function copiesOf(file: string, planted: readonly PlantedCopy[], required: readonly string[], runIds: Map<string, string>): Canary[] {
  const out: Canary[] = [];
  for (const p of planted) {
    for (const id of required) {
      const t = splitTestId(id);
      if (t.file !== file || t.key !== p.of) continue;
      runIds.set(id, `${file}::${p.original_as}${t.params}`);
      out.push({ id: `${file}::${p.as}${t.params}`, file, expect: p.kind === "mutant" ? "failed" : "passed", of: id });
    }
  }
  return out;
}

/**
 * Plants canaries into the required tests' files (at most five, drawn at random): mutants of the
 * file's fail-to-pass tests (else of its pass-to-pass ones), twins of its pass-to-pass tests, and
 * constant canaries for whatever a file could not get. Only files named as the runner names test
 * modules (`testModule`: a doctest id names a source module, which gets nothing).
 */
export async function plantCanaries(
  checkout: string,
  python: string,
  f2p: readonly string[],
  p2p: readonly string[],
  runner: { testModule: RegExp; constantCanary: ConstantCanaryForm },
): Promise<Planting> {
  const testModule = runner.testModule;
  const required = [...new Set([...f2p, ...p2p])];
  const runIds = new Map(required.map((id) => [id, id]));
  const files = shuffled(
    [...new Set(required.map((id) => splitTestId(id).file))].filter((f) => testModule.test(f) && plantable(join(checkout, f))),
  ).slice(0, maxFiles);
  const keys = (ids: readonly string[], file: string) => [
    ...new Set(
      ids
        .map(splitTestId)
        .filter((t) => t.file === file)
        .map((t) => t.key),
    ),
  ];
  // A required test of another file may inherit a method of this one (a subclass of an imported class):
  // a copy must not take such a method's name, or that test would run the mutant.
  const elsewhere = (file: string) => [
    ...new Set(
      required
        .map(splitTestId)
        .filter((t) => t.file !== file)
        .map((t) => t.key.split("::").pop()!),
    ),
  ];
  const pristine = new Map(files.map((f) => [f, readFileSync(join(checkout, f), "utf8")]));
  const restore = () => {
    for (const [f, text] of pristine) writeFileSync(join(checkout, f), text);
  };
  const request = {
    files: files.map((f) => ({
      path: f,
      text: pristine.get(f)!,
      mutate: keys(f2p, f),
      mutate_fallback: keys(p2p, f),
      twin: keys(p2p, f),
      keep_names: elsewhere(f),
      max_mutants: 3,
      max_twins: 2,
    })),
  };
  const answer = files.length === 0 ? [] : await runHelper(python, request);
  const notes: string[] = [];
  if (typeof answer === "string") notes.push(`canaries from the real tests could not be made (${answer}); constant canaries only`);
  const canaries: Canary[] = [];
  for (const file of files) {
    const got = typeof answer === "string" ? undefined : answer.find((a) => a.path === file);
    if (got && got.text !== null) {
      writeFileSync(join(checkout, file), got.text);
      canaries.push(...copiesOf(file, got.planted, required, runIds));
    }
    const kinds = new Set(canaries.filter((c) => c.file === file).map((c) => c.expect));
    const missing = (["failed", "passed"] as const).filter((e) => !kinds.has(e));
    if (missing.length > 0) canaries.push(...plantConstantCanaries(checkout, file, missing, runner.constantCanary));
    notes.push(
      `${file}: ${got?.planted.filter((p) => p.kind === "mutant").length ?? 0} mutant(s), ${got?.planted.filter((p) => p.kind === "twin").length ?? 0} twin(s)${missing.length > 0 ? `, constant ${missing.map((e) => `must-${e === "failed" ? "fail" : "pass"}`).join(" and ")}` : ""}`,
    );
  }
  return { canaries, runIds, notes, restore };
}
