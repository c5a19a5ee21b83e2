import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { InputError, inputError, zodProblems } from "../core/errors.js";
import { FROM_RUN_VERSION, runFingerprint } from "../handoff/from-run/run-identity.js";
import { conditionScores, type HandoffCitation } from "./handoff-citation-schema.js";

/** The part of a `handoff score --format json` document the report reads. */
const scoresFileSchema = z.looseObject({
  overall: z.number(),
  conditions: conditionScores,
  cases: z.record(z.string(), z.unknown()),
  problems: z.array(z.unknown()),
  record: z.looseObject({
    provider: z.string().nullable().optional(),
    model: z.string().nullable().optional(),
    date: z.string().nullable().optional(),
    dataset: z.object({ file: z.string(), version: z.string(), sha256: z.string() }).strict(),
  }),
});

/** Reads a scores file; refuses one that was not built from the run directory `runDir`. */
export function readHandoffCitation(scoresArg: string, runDir: string): HandoffCitation {
  const file = resolve(scoresArg);
  if (!existsSync(file)) throw inputError(file, "", "handoff scores file not found");
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw inputError(file, "", `not JSON (write it with handoff score --format json): ${(e as Error).message}`);
  }
  const parsed = scoresFileSchema.safeParse(json);
  if (!parsed.success) throw new InputError(zodProblems(file, parsed.error));
  const s = parsed.data;
  const version = s.record.dataset.version;
  const [prefix, fingerprint] = version.split("+");
  if (prefix !== FROM_RUN_VERSION || !fingerprint) {
    throw inputError(
      file,
      "record.dataset.version",
      `"${version}" is not a dataset of handoff from-run (${FROM_RUN_VERSION}+RUN): score the cases of handoff from-run ${runDir}`,
    );
  }
  const own = runFingerprint(runDir);
  if (own !== fingerprint) {
    throw inputError(
      file,
      "record.dataset.version",
      `the scores were built from another run (${fingerprint}), not from ${runDir} (${own ?? "no run.json"})`,
    );
  }
  return {
    scores_file: scoresArg,
    dataset: s.record.dataset,
    provider: s.record.provider ?? null,
    model: s.record.model ?? null,
    date: s.record.date ?? null,
    cases: Object.keys(s.cases).length,
    problems: s.problems.length,
    overall: s.overall,
    conditions: s.conditions,
  };
}

/**
 * Attaches each scores file to the configuration whose run it was built from; a file that matches
 * none of the run directories is refused (its problem says whose run it was built from).
 */
export function citeHandoffScores(configs: Array<{ run_dir: string; handoff?: HandoffCitation }>, files: readonly string[]): void {
  for (const file of files) {
    let lastError: unknown = null;
    const target = configs.find((c) => {
      try {
        c.handoff = readHandoffCitation(file, c.run_dir);
        return true;
      } catch (e) {
        lastError = e;
        return false;
      }
    });
    if (!target) throw lastError;
  }
}
