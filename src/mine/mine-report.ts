import { z } from "zod";
import { rejectReasons } from "./stage-tests.js";

export const MINE_REPORT_FORMAT = "switch-swe.mine-report/1";

/**
 * What decides a candidate's verdict, recorded so that a resumed run (`tasks mine` on its own
 * `--out`) judges the remaining candidates exactly as the finished ones were judged.
 */
export const mineSettingsSchema = z
  .object({
    runs: z.number().int().positive(),
    max_stages: z.number().int().positive(),
    suite: z.enum(["whole", "touched"]),
    timeout_s: z.number().int().positive(),
    test_command: z.string(),
    /** `--test-runner`: absent in reports written before it existed (= the default runner, pytest). */
    test_runner: z.string().optional(),
    setup: z.array(z.string()),
    setup_commit: z.string().nullable(),
    /** `--python`: absent in reports written before it existed (= none declared). */
    python: z.string().nullable().optional(),
    name: z.string().nullable(),
    url: z.string().nullable(),
    license: z.string().nullable(),
    /** `--path`: absent in reports written before it existed (= anywhere). */
    paths: z.array(z.string()).optional(),
    /** `--test-glob`: absent in reports written before it existed (= the default test globs only). */
    test_globs: z.array(z.string()).optional(),
  })
  .strict();

/** A step that is no stage (src/mine/substance.ts): its commit, the rule, the commit ending the stage it joined (null: none). */
const foldedSchema = z.object({ step: z.string(), rule: z.string(), into: z.string().nullable() }).strict();

/** A touched test module whose tests fail in every state, with the reason (pytest's words when it gave some). */
const failingModuleSchema = z.object({ module: z.string(), reason: z.string() }).strict();

/** `mine-report.json`: candidates seen, mined and rejected by reason; written after every candidate. */
export const mineReportSchema = z
  .object({
    format: z.literal(MINE_REPORT_FORMAT),
    repo: z.string(),
    range: z.string(),
    /** Absent in reports written before runs could be resumed: such a run cannot be resumed. */
    settings: mineSettingsSchema.optional(),
    commits_seen: z.number().int().nonnegative(),
    candidates_seen: z.number().int().nonnegative(),
    /**
     * `test_runs`: test runs the candidate cost (states × runs; one run per state when the first run
     * rejects it, none when the pre-checks do). `folded`, `stages_without_f2p`, `regression_tests` and
     * `failing_modules` are absent in reports written before the stage rule of issue 28.
     */
    mined: z.array(
      z
        .object({
          task: z.string(),
          stages: z.number().int(),
          f2p: z.number().int(),
          p2p: z.number().int(),
          qualification_ms: z.number(),
          test_runs: z.number().int(),
          provenance: z.string(),
          folded: z.array(foldedSchema).optional(),
          stages_without_f2p: z.array(z.number().int().positive()).optional(),
          regression_tests: z.array(z.string()).optional(),
          failing_modules: z.array(failingModuleSchema).optional(),
          /** F2P tests mapped to stage K > 1 whose module could not be imported after stage K-1 (absent before 2026-12-07). */
          import_gated: z.array(z.object({ test: z.string(), stage: z.number().int().positive(), cause: z.string() }).strict()).optional(),
        })
        .strict(),
    ),
    rejected: z.array(
      z
        .object({
          candidate: z.string(),
          reason: z.enum(rejectReasons),
          detail: z.string(),
          test_runs: z.number().int(),
          folded: z.array(foldedSchema).optional(),
          failing_modules: z.array(failingModuleSchema).optional(),
          /** F2P tests mapped to stage K > 1 whose module could not be imported after stage K-1 (absent before 2026-12-07). */
          import_gated: z.array(z.object({ test: z.string(), stage: z.number().int().positive(), cause: z.string() }).strict()).optional(),
        })
        .strict(),
    ),
    rejected_by_reason: z.partialRecord(z.enum(rejectReasons), z.number().int()),
    warnings: z.array(z.string()),
    /**
     * `--known`: candidates that a given manifest already holds (the same merge or chain), skipped
     * without a test run; worked out afresh by every run (absent: no --known).
     */
    known: z.array(z.object({ candidate: z.string(), task: z.string(), manifest: z.string() }).strict()).optional(),
  })
  .strict();

export type MineSettings = z.infer<typeof mineSettingsSchema>;
export type MineReport = z.infer<typeof mineReportSchema>;
