import { z } from "zod";

/** A required test's fate. Only `passed` counts towards resolution. */
export const testStatusSchema = z.enum(["passed", "failed", "error", "skipped", "missing", "timeout"]);

export const verdictSchema = z
  .object({
    format: z.literal("switch-swe.verdict/1"),
    session: z.string(),
    task: z.string(),
    /** sha256 of the artifact verified, so a verdict can be matched to the frozen patch. */
    artifact_sha256: z.string().nullable(),
    applied: z.boolean(),
    apply_method: z.enum(["empty", "git-apply", "git-apply-3way", "patch-fuzz"]).nullable(),
    /** Why the artifact did not apply (or was refused: paths outside the repository, .git/). */
    apply_error: z.string().optional(),
    /** Test files (by the repository's rules or the held-out patch) removed from the artifact before applying. */
    dropped_files: z.array(z.string()),
    /** Status of every required (F2P and P2P) test. */
    tests: z.record(z.string(), testStatusSchema),
    fail_to_pass: z.object({ passed: z.number().int(), total: z.number().int() }).strict(),
    pass_to_pass: z.object({ passed: z.number().int(), total: z.number().int() }).strict(),
    resolved: z.boolean(),
    /** The outcome says nothing about the model: set-up failed or the verifier crashed. */
    infra_fault: z.boolean(),
    infra_reason: z.string().optional(),
    timed_out: z.boolean(),
    exit_code: z.number().int().nullable(),
    /** Where results were read from: the JUnit report cross-checked with the runner's channel (`output` only in verdicts of older versions). */
    result_source: z.enum(["junit", "output", "none"]),
    setup_cached: z.boolean(),
    duration_ms: z.number().nonnegative(),
    attempts: z.number().int().positive(),
    log: z.string(),
    verified_at: z.string(),
    /** Observations that do not change the outcome but a reader should know (exit code vs report, restored files). */
    notes: z.array(z.string()).optional(),
    /** The artifact reaches for the means of in-process forgery (runner modules, atexit, os._exit, ...); `report` counts it apart. */
    suspicious: z.boolean().optional(),
    suspicious_reasons: z.array(z.string()).optional(),
    /**
     * The tests the harness planted beside the required ones, whose outcomes only it knew (never in
     * `tests`): what each had to be and what the run reported; `trusted: false` made the run untrusted.
     */
    canaries: z
      .object({
        // `of`: the required test a mutant (expected failed) or twin (expected passed) copies.
        tests: z.array(
          z
            .object({ id: z.string(), expected: z.enum(["passed", "failed"]), reported: testStatusSchema, of: z.string().optional() })
            .strict(),
        ),
        trusted: z.boolean(),
        problems: z.array(z.string()).optional(),
      })
      .strict()
      .optional(),
    /** HMAC-SHA256 of the verdict without this field, keyed per run (see src/verify/verdict-seal.ts). */
    seal: z.string().optional(),
  })
  .strict();

export type TestStatus = z.infer<typeof testStatusSchema>;
export type Verdict = z.infer<typeof verdictSchema>;
