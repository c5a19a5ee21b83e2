import { z } from "zod";

export const conditionScores = z.object({ transcript: z.number(), memory: z.number(), handoff: z.number() }).strict();

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
