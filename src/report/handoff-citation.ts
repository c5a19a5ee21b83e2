import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { InputError, inputError, zodProblems } from "../core/errors.js";
import { FROM_RUN_VERSION, runFingerprint } from "../handoff/from-run/run-identity.js";
import type { Report } from "./report-schema.js";
import type { Section } from "./sections.js";

const conditionScores = z.object({ transcript: z.number(), memory: z.number(), handoff: z.number() }).strict();

/** A run's handoff score as the report cites it (`report RUN_DIR --handoff SCORES.json`). */
export const handoffCitationSchema = z
  .object({
    /** The `handoff score --format json` file, as given. */
    scores_file: z.string(),
    /** The scored dataset (from `handoff from-run RUN_DIR`): file name, version (with the run's fingerprint), sha256. */
    dataset: z.object({ file: z.string(), version: z.string(), sha256: z.string() }).strict(),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    date: z.string().nullable(),
    cases: z.number().int(),
    problems: z.number().int(),
    /** Points out of 100, as `handoff score` reports them. */
    overall: z.number(),
    conditions: conditionScores,
  })
  .strict();

export type HandoffCitation = z.infer<typeof handoffCitationSchema>;

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
    throw inputError(file, "record.dataset.version", `"${version}" is not a dataset of handoff from-run (${FROM_RUN_VERSION}+RUN): score the cases of handoff from-run ${runDir}`);
  }
  const own = runFingerprint(runDir);
  if (own !== fingerprint) {
    throw inputError(file, "record.dataset.version", `the scores were built from another run (${fingerprint}), not from ${runDir} (${own ?? "no run.json"})`);
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

/** The report's "Handoff continuity" table: one row per configuration that cites its handoff score. */
export function handoffSection(report: Report): Section | null {
  const cited = report.configs.filter((c) => c.handoff);
  if (cited.length === 0) return null;
  const pts = (x: number) => x.toFixed(1);
  return {
    id: "handoff",
    title: "Handoff continuity (handoff score of the run's own sessions)",
    notes: [
      "Cases built by handoff from-run from this run's switched sessions (one per focus return); points out of 100, judge-free. " +
        "transcript = the conversation so far, memory = RCM's state record, handoff = a structured handoff of the same facts.",
    ],
    columns: [
      { header: "Configuration", align: "left" },
      { header: "Model", align: "left" },
      { header: "Cases", align: "right" },
      { header: "Transcript", align: "right" },
      { header: "Memory", align: "right" },
      { header: "Handoff", align: "right" },
      { header: "Overall", align: "right" },
      { header: "Problems", align: "right" },
      { header: "Scores file", align: "left" },
    ],
    rows: cited.map((c) => {
      const h = c.handoff!;
      return [c.label, [h.provider, h.model].filter(Boolean).join("/") || "–", String(h.cases), pts(h.conditions.transcript), pts(h.conditions.memory), pts(h.conditions.handoff), pts(h.overall), String(h.problems), h.scores_file];
    }),
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
