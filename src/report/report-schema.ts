import { harnessInfoSchema } from "../formats/run-config.js";
import { handoffCitationSchema } from "./handoff-citation-schema.js";
import { z } from "zod";
import { conditionSchema, localitySchema, workspaceNameSchema } from "../formats/sessions.js";
import { testStatusSchema } from "../formats/verdict.js";

/**
 * The `switch-swe.report/2` document (docs/report-format.md documents every field).
 * Rates are percentages (0..100), gaps percentage points; null where a value is undefined (no sessions).
 */
export const REPORT_FORMAT = "switch-swe.report/2";

const num = z.number().nullable();
const interval = z.tuple([z.number(), z.number()]).nullable();

export const groupNames = ["overall", "near", "far"] as const;
export type GroupName = (typeof groupNames)[number];

export const groupResultSchema = z
  .object({
    n: z.number().int(),
    resolved: z.object({ uninterrupted: z.number().int(), switched: z.number().int() }).strict(),
    uninterrupted: num,
    switched: num,
    gap: num,
    ci95: interval,
    mcnemar_p: num,
    discordant: z.object({ base_only: z.number().int(), switch_only: z.number().int() }).strict(),
  })
  .strict();

export const attributionSchema = z
  .object({
    unresolved: z.number().int(),
    attributed: z.number().int(),
    excluded: z
      .object({
        /** Not run, not finalized, or no verdict. */
        not_scored: z.number().int(),
        infra_fault: z.number().int(),
        not_applied: z.number().int(),
        /** Resolved verdicts marked suspicious: counted as unresolved unless --trust-suspicious. */
        suspicious: z.number().int().optional(),
        unmapped: z.number().int(),
      })
      .strict(),
    earlier_stage_failure: z.number().int(),
    earlier_stage_share: num,
    last_stage_only: z.number().int(),
    p2p_only: z.number().int(),
    failed_stages: z.record(z.string(), z.number().int()),
  })
  .strict();

const byCondition = <T extends z.ZodType>(s: T) => z.object({ base: s, switch: s }).strict();
const byGroup = <T extends z.ZodType>(s: T) => z.object({ overall: s, near: s, far: s }).strict();

export const stageAttributionSchema = z
  .object({ available: z.boolean(), note: z.string().nullable(), groups: byGroup(byCondition(attributionSchema)) })
  .strict();

export const usageMeansSchema = z
  .object({
    sessions: z.number().int(),
    tokens: num,
    model_calls: num,
    tool_calls: num,
    cost_usd: num,
    cost_coverage: num,
    auxiliary_tokens: num,
    auxiliary_model_calls: num,
  })
  .strict();

const usageRatiosSchema = z.object({ tokens: num, model_calls: num, tool_calls: num, cost_usd: num }).strict();

export const workloadSchema = z
  .object({
    uninterrupted: usageMeansSchema,
    switched: usageMeansSchema,
    resumed_focus: usageMeansSchema,
    resumed_focus_paired: z
      .object({ pairs: z.number().int(), switched: usageMeansSchema, uninterrupted_same_stages: usageMeansSchema })
      .strict(),
    ratios: z
      .object({
        switched_over_uninterrupted: usageRatiosSchema,
        resumed_focus_over_uninterrupted_same_stages: usageRatiosSchema,
      })
      .strict(),
  })
  .strict();

export const summarySchema = z.object({ median: num, mean: num, min: num, max: num }).strict();

export const profileEntrySchema = z
  .object({
    sessions: z.number().int(),
    /** Distinct repositories of the focus tasks. */
    repositories: z.number().int(),
    requests: summarySchema,
    workspace_switches: summarySchema,
    focus_returns: summarySchema,
  })
  .strict();

export const errorCountsSchema = z
  .object({
    sessions: z.number().int(),
    not_run: z.number().int(),
    not_finalized: z.number().int(),
    no_verdict: z.number().int(),
    infra_fault_run: z.number().int(),
    restarts: z.number().int(),
    infra_fault_verify: z.number().int(),
    timeouts: z.number().int(),
    sessions_with_timeout: z.number().int(),
    continuations: z.number().int(),
    agent_errors: z.number().int(),
    not_applied: z.number().int(),
    /** Resolved verdicts marked suspicious: counted as unresolved unless --trust-suspicious. */
    suspicious: z.number().int().optional(),
    invalid_trajectory_lines: z.number().int(),
    /** Spent in attempts that a restart superseded: paid for, but not in the workload means. */
    superseded_tokens: z.number(),
    superseded_cost_usd: z.number().nullable(),
  })
  .strict();

export const unresolvedReasonSchema = z.enum([
  "not run",
  "not finalized",
  "no verdict",
  "infra fault",
  "did not apply",
  "tests failed",
  "suspicious",
]);

export const sessionUsageSchema = z
  .object({
    tokens: z.number(),
    model_calls: z.number().int(),
    tool_calls: z.number().int(),
    cost_usd: num,
    auxiliary_tokens: z.number(),
    auxiliary_model_calls: z.number().int(),
    resumed_focus_tokens: z.number(),
    /** The largest input (input + cached + cache writes) of one model call during a focus request; null: none. */
    focus_context_tokens: z.number().nullable(),
  })
  .strict();

/** Per session; null = unavailable (the run directory lacks what the signature needs), never "zero". */
export const sessionSignaturesSchema = z
  .object({
    /** (request, other workspace) pairs: a request of one task changed another task's checkout. */
    wrong_workspace_edits: z.number().int().nullable(),
    /** Added lines of the focus artifact that carry an interruption task's material. */
    cross_task_contamination: z.number().int().nullable(),
    /** Stage attribution named: an F2P test of a focus stage before the last tested stage does not pass. */
    lost_requirement: z.boolean().nullable(),
    /** Focus files returned to earlier content by a later stage request. */
    reverted_work: z.number().int().nullable(),
    incomplete_execution: z.boolean().nullable(),
    submission: z.boolean().nullable(),
  })
  .strict();

/** The signatures a request can be blamed for; the others (incomplete execution, submission) are the session's. */
export const markedSignatureNames = ["wrong_workspace_edits", "cross_task_contamination", "lost_requirement", "reverted_work"] as const;

/** Where in a session a signature happened: the request it is marked on (docs/report-format.md, "Session viewer"). */
export const signatureMarkSchema = z
  .object({
    signature: z.enum(markedSignatureNames),
    /** Index into the session's schedule; null = the session as a whole (no per-request evidence to place it). */
    request: z.number().int().nonnegative().nullable(),
    /** The workspace the mark is about (the one edited, the focus checkout). */
    workspace: workspaceNameSchema.nullable(),
    paths: z.array(z.string()),
    detail: z.string(),
  })
  .strict();

export const failureCategorySchema = z.enum(["implementation", "submission", "incomplete_execution"]);

export const sessionEntrySchema = z
  .object({
    id: z.string(),
    pair: z.string(),
    focus: z.string(),
    condition: conditionSchema,
    locality: localitySchema,
    status: z.enum(["resolved", "unresolved"]),
    reason: unresolvedReasonSchema.nullable(),
    detail: z.string().nullable(),
    attempts: z.number().int(),
    finalized: z.boolean().nullable(),
    requests: z.object({ scheduled: z.number().int(), delivered: z.number().int() }).strict(),
    workspace_switches: z.number().int(),
    focus_returns: z.number().int(),
    timeouts: z.number().int(),
    continuations: z.number().int(),
    usage: sessionUsageSchema.nullable(),
    verdict: z
      .object({
        applied: z.boolean(),
        resolved: z.boolean(),
        infra_fault: z.boolean(),
        timed_out: z.boolean(),
        apply_method: z.string().nullable(),
        fail_to_pass: z.object({ passed: z.number().int(), total: z.number().int() }).strict(),
        pass_to_pass: z.object({ passed: z.number().int(), total: z.number().int() }).strict(),
        tests: z.array(
          z
            .object({
              id: z.string(),
              kind: z.enum(["F2P", "P2P"]).nullable(),
              stage: z.number().int().nullable(),
              status: testStatusSchema,
            })
            .strict(),
        ),
      })
      .strict()
      .nullable(),
    failed_stages: z.array(z.number().int()).nullable(),
    /** Workspace name -> task id (from the sessions file), identical in both conditions. */
    workspaces: z.record(z.string(), z.string()),
    schedule: z.array(
      z
        .object({
          task: z.string(),
          role: z.enum(["focus", "interruption"]),
          workspace: workspaceNameSchema,
          kind: z.enum(["stage", "finalization"]),
          stage: z.number().int().nullable(),
          focus_return: z.boolean(),
        })
        .strict(),
    ),
    files: z.object({ trajectory: z.string().nullable(), artifact: z.string().nullable() }).strict(),
    signatures: sessionSignaturesSchema,
    /** Each signature on the request where it happened; as many wrong-workspace marks as edits counted. */
    signature_marks: z.array(signatureMarkSchema),
    failure_category: failureCategorySchema.nullable(),
  })
  .strict();

export const signatureNames = [
  "wrong_workspace_edits",
  "cross_task_contamination",
  "lost_requirement",
  "reverted_work",
  "incomplete_execution",
  "submission",
] as const;
export type SignatureName = (typeof signatureNames)[number];

/** One signature over one condition's sessions: how many could be checked, how many show it, how often. */
export const signatureCountSchema = z
  .object({ available: z.number().int(), sessions: z.number().int().nullable(), count: z.number().int().nullable() })
  .strict();

export const signatureTotalsSchema = z
  .object(Object.fromEntries(signatureNames.map((n) => [n, signatureCountSchema])) as Record<SignatureName, typeof signatureCountSchema>)
  .strict();

export const failureCountsSchema = z
  .object({
    sessions: z.number().int(),
    resolved: z.number().int(),
    implementation: z.number().int(),
    submission: z.number().int(),
    incomplete_execution: z.number().int(),
    /** Unresolved without a score of the agent's work: not run, no verdict, infrastructure fault. */
    not_scored: z.number().int(),
  })
  .strict();

/** The smallest gap the run's pairs detect (src/core/power.ts): exact McNemar, two-sided α = 0.05, 80% power. */
export const detectableGapSchema = z
  .object({
    pairs: z.number().int(),
    /** Discordant pairs observed (null only before a run; a report always has a count). */
    discordant_pairs: z.number().int().nullable(),
    /** Paired discordance used, in percent: the observed one, or 25 when no pair was discordant. */
    discordance: z.number(),
    assumed: z.boolean(),
    /** Percentage points to 0.1; null when no gap up to the discordance reaches 80% power. */
    min_detectable_gap: num,
  })
  .strict();

export const powerSchema = z
  .object({
    alpha: z.number(),
    power: z.number(),
    groups: byGroup(detectableGapSchema),
    /** One line when the overall minimum detectable gap is larger than the paper's mean gap (11.5 points). */
    warning: z.string().nullable(),
  })
  .strict();

/** What a reader sees first (src/report/headline.ts): the overall result of one configuration. */
export const headlineSchema = z
  .object({
    /** The run directory's name (never its absolute path). */
    run: z.string(),
    pairs: z.number().int(),
    uninterrupted: num,
    switched: num,
    gap: num,
    ci95: interval,
    mcnemar_p: num,
    min_detectable_gap: num,
    /** The result in one sentence. */
    text: z.string(),
    /** The smallest gap the pairs detect, in one sentence. */
    power: z.string(),
  })
  .strict();

/** gap(far) − gap(near): does resuming cost more when the interruptions touch code far from the focus? */
export const farMinusNearSchema = z
  .object({
    near: z.object({ pairs: z.number().int(), gap: num }).strict(),
    far: z.object({ pairs: z.number().int(), gap: num }).strict(),
    /** Percentage points; null when either group has no pair. */
    difference: num,
    /** Percentile bootstrap, far and near tasks resampled apart. */
    ci95: interval,
  })
  .strict();

/** The paper's Table 2 comparison: the resumed focus stages' tokens as a multiple of the whole uninterrupted session. */
export const resumedFocusTokenRatioSchema = z
  .object({
    /** Pairs where both sessions ran. */
    pairs: z.number().int(),
    /** Means per pair. */
    resumed_focus_tokens: num,
    uninterrupted_tokens: num,
    ratio: num,
    /** Percentile bootstrap of the ratio of means, pairs resampled whole. */
    ci95: interval,
  })
  .strict();

const binCountSchema = z.object({ sessions: z.number().int(), resolved: z.number().int(), rate: num }).strict();

/** Resolution by the largest context the model was sent on the focus task (src/report/analyses.ts has the bins). */
export const resolutionByContextSchema = z
  .object({
    bins: z.array(
      z
        .object({
          /** Input tokens, from (inclusive) to (exclusive; null: no upper bound). */
          from: z.number().int(),
          to: z.number().int().nullable(),
          base: binCountSchema,
          switch: binCountSchema,
        })
        .strict(),
    ),
    /** Sessions that ran without a model call during a focus request (the harness's own agents). */
    unmeasured: z.object({ base: z.number().int(), switch: z.number().int() }).strict(),
  })
  .strict();

/** How often the same tasks serve as interruptions across the switched sessions. */
export const interruptionReuseSchema = z
  .object({
    switched_sessions: z.number().int(),
    /** Interruption places in all (4 per switched session). */
    slots: z.number().int(),
    distinct_tasks: z.number().int(),
    /** Of those, tasks that are also a focus task of the sessions file. */
    also_focus: z.number().int(),
    /** Switched sessions per interruption task. */
    uses: z.object({ median: num, mean: num, min: num, max: num }).strict(),
    most_used: z.object({ task: z.string(), sessions: z.number().int() }).strict().nullable(),
  })
  .strict();

/** One focus task as the paper's Appendix D lists it; verifier sizes null when neither dataset nor verdict says. */
export const catalogueEntrySchema = z
  .object({
    task: z.string(),
    /** null only in a document completed from an older report, which did not record it. */
    repo: z.string().nullable(),
    locality: localitySchema,
    /** The first request's first sentence (at most 120 characters). */
    objective: z.string(),
    stages: z.number().int(),
    /** Stages that introduce an F2P test of their own. */
    tested_stages: z.number().int().nullable(),
    f2p: z.number().int().nullable(),
    p2p: z.number().int().nullable(),
  })
  .strict();

export const configReportSchema = z
  .object({
    label: z.string(),
    headline: headlineSchema,
    run_dir: z.string(),
    /** `harness`: what run.json recorded about a real CLI agent (null for other agents and older runs). */
    agent: z.object({ name: z.string(), options: z.unknown(), harness: harnessInfoSchema.nullable() }).strict(),
    /** The harness table's view of run.json `agent.harness`; null fields = not recorded ("unknown"). */
    harness: z
      .object({ name: z.string().nullable(), version: z.string().nullable(), model: z.string().nullable(), effort: z.string().nullable() })
      .strict(),
    /** `sha256`: the dataset digest the run ran (run.json's, else that of the dataset read; null: unknown). */
    dataset: z
      .object({ name: z.string().nullable(), version: z.string().nullable(), path: z.string().nullable(), sha256: z.string().nullable() })
      .strict(),
    /** `sha256`: the sessions file the run ran (run.json's digest, else that of the file read). */
    sessions_file: z.object({ path: z.string(), sha256: z.string().nullable(), pairs: z.number().int() }).strict(),
    /**
     * Pairs of the sessions file by what ran: `not_run` neither session, `partly_run` one of the two. Every
     * figure keeps all `pairs` in its denominator (a session not run counts as unresolved).
     */
    pairs_run: z.object({ pairs: z.number().int(), not_run: z.number().int(), partly_run: z.number().int() }).strict(),
    /** How the scored patch was taken (run.json `submission`; runs made before it was recorded: checkout). */
    submission: z.enum(["agent", "checkout"]),
    groups: byGroup(groupResultSchema),
    power: powerSchema,
    stage_attribution: stageAttributionSchema,
    workload: workloadSchema,
    /** The workload section again over near and far focus tasks only. */
    workload_by_locality: z.object({ near: workloadSchema, far: workloadSchema }).strict(),
    far_minus_near: farMinusNearSchema,
    resumed_focus_token_ratio: resumedFocusTokenRatioSchema,
    resolution_by_context: resolutionByContextSchema,
    interruption_reuse: interruptionReuseSchema,
    catalogue: z.array(catalogueEntrySchema),
    profile: byGroup(byCondition(profileEntrySchema)),
    failure_categories: byGroup(byCondition(failureCountsSchema)),
    signatures: byCondition(signatureTotalsSchema),
    errors: byCondition(errorCountsSchema),
    sessions: z.array(sessionEntrySchema),
    request_texts: z.record(z.string(), z.record(z.string(), z.string())),
    warnings: z.array(z.string()),
    /** The run's handoff score, when the report cites one (`--handoff SCORES.json`). */
    handoff: handoffCitationSchema.optional(),
  })
  .strict();

export const comparisonGroupSchema = z
  .object({
    n_common: z.number().int(),
    a: z.object({ uninterrupted: num, switched: num, gap: num }).strict(),
    b: z.object({ uninterrupted: num, switched: num, gap: num }).strict(),
    gap_difference: num,
    ci95: interval,
    /** Exact two-sided sign-flip (paired permutation) test of gap_difference = 0 over the common tasks. */
    p_value: num,
  })
  .strict();

export const comparisonSchema = z.object({ a: z.string(), b: z.string(), groups: byGroup(comparisonGroupSchema) }).strict();

const rateCiSchema = z.object({ rate: num, ci95: interval }).strict();
const pointsCiSchema = z.object({ points: num, ci95: interval }).strict();

/** One RCM run of the paper's Table 3, over the focus tasks common to every run of the table. */
export const rcmTableArmSchema = z
  .object({
    label: z.string(),
    uninterrupted: rateCiSchema,
    /** The +RCM column: this run's switched resolution. */
    switched: rateCiSchema,
    /** This run's own gap (uninterrupted − switched). */
    gap: pointsCiSchema,
    /** +RCM − the native run's switched resolution (paired bootstrap CI). */
    recovered: pointsCiSchema,
    /** The native run's uninterrupted resolution − +RCM (paired bootstrap CI). */
    remaining_gap: pointsCiSchema,
  })
  .strict();

export const rcmTableGroupSchema = z
  .object({
    /** Focus tasks every run of the table ran (same pair id); every figure of the group is over them. */
    n_common: z.number().int(),
    base: rateCiSchema,
    switch: rateCiSchema,
    gap: pointsCiSchema,
    rcm: z.array(rcmTableArmSchema),
  })
  .strict();

/** The paper's Table 3 (`compare --native RUN --rcm RUN...`): base / switch of the native run, +RCM of each RCM run, and the gaps. */
export const rcmTableSchema = z.object({ native: z.string(), rcm: z.array(z.string()), groups: byGroup(rcmTableGroupSchema) }).strict();

/** Mean of the configurations' gaps (the paper's averages), its range, and a bootstrap CI of the mean. */
export const crossConfigSchema = z
  .object({ configs: z.number().int(), mean_gap: num, min_gap: num, max_gap: num, ci95: interval })
  .strict();

const figurePointSchema = z
  .object({
    config: z.number().int(),
    label: z.string(),
    condition: conditionSchema,
    sessions: z.number().int(),
    resolution: num,
    tokens: num,
    cost_usd: num,
  })
  .strict();

const figureBarSchema = z
  .object({ config: z.number().int(), label: z.string(), condition: conditionSchema })
  .extend(failureCountsSchema.shape)
  .strict();

/** The data of the page's Figure 1a (resolution against mean cost) and 1b (failure categories). */
export const figuresSchema = z
  .object({ resolution_vs_cost: z.array(figurePointSchema), failure_categories: z.array(figureBarSchema) })
  .strict();

export const reportSchema = z
  .object({
    format: z.literal(REPORT_FORMAT),
    bootstrap: z
      .object({ seed: z.number().int(), resamples: z.number().int(), method: z.literal("percentile"), level: z.literal(0.95) })
      .strict(),
    configs: z.array(configReportSchema),
    summary: byGroup(crossConfigSchema),
    figures: figuresSchema,
    comparison: comparisonSchema.nullable(),
    /** `compare --native RUN --rcm RUN...` only (absent otherwise). */
    rcm_table: rcmTableSchema.optional(),
  })
  .strict();

export type GroupResult = z.infer<typeof groupResultSchema>;
export type Headline = z.infer<typeof headlineSchema>;
export type FarMinusNear = z.infer<typeof farMinusNearSchema>;
export type ResumedFocusTokenRatio = z.infer<typeof resumedFocusTokenRatioSchema>;
export type ResolutionByContext = z.infer<typeof resolutionByContextSchema>;
export type InterruptionReuse = z.infer<typeof interruptionReuseSchema>;
export type CatalogueEntry = z.infer<typeof catalogueEntrySchema>;
export type Power = z.infer<typeof powerSchema>;
export type Attribution = z.infer<typeof attributionSchema>;
export type UsageMeans = z.infer<typeof usageMeansSchema>;
export type Workload = z.infer<typeof workloadSchema>;
export type ProfileEntry = z.infer<typeof profileEntrySchema>;
export type ErrorCounts = z.infer<typeof errorCountsSchema>;
export type UnresolvedReason = z.infer<typeof unresolvedReasonSchema>;
export type SessionEntry = z.infer<typeof sessionEntrySchema>;
export type ConfigReport = z.infer<typeof configReportSchema>;
export type ComparisonGroup = z.infer<typeof comparisonGroupSchema>;
export type Comparison = z.infer<typeof comparisonSchema>;
export type RcmTable = z.infer<typeof rcmTableSchema>;
export type Report = z.infer<typeof reportSchema>;
export type SessionSignatures = z.infer<typeof sessionSignaturesSchema>;
export type SignatureMark = z.infer<typeof signatureMarkSchema>;
export type FailureCategory = z.infer<typeof failureCategorySchema>;
export type SignatureCount = z.infer<typeof signatureCountSchema>;
export type SignatureTotals = z.infer<typeof signatureTotalsSchema>;
export type FailureCounts = z.infer<typeof failureCountsSchema>;
export type CrossConfig = z.infer<typeof crossConfigSchema>;
export type Figures = z.infer<typeof figuresSchema>;
export type ByGroup<T> = Record<GroupName, T>;
export type ByCondition<T> = { base: T; switch: T };

/**
 * A report/2 document as read back: documents written before a field existed lack it (the headline, the
 * paper's analyses, a session's focus context). Each is computed from the document's own figures when
 * read (src/report/read-report.ts; docs/report-format.md, "Reading a report back"), so readers see one shape.
 */
const sessionEntryReadSchema = sessionEntrySchema.extend({
  usage: sessionUsageSchema.extend({ focus_context_tokens: z.number().nullable().optional() }).strict().nullable(),
});
export const configReportReadSchema = configReportSchema
  .extend({
    headline: headlineSchema.optional(),
    far_minus_near: farMinusNearSchema.optional(),
    resumed_focus_token_ratio: resumedFocusTokenRatioSchema.optional(),
    resolution_by_context: resolutionByContextSchema.optional(),
    interruption_reuse: interruptionReuseSchema.optional(),
    catalogue: z.array(catalogueEntrySchema).optional(),
    sessions: z.array(sessionEntryReadSchema),
  })
  .strict();
export const reportReadSchema = reportSchema.extend({ configs: z.array(configReportReadSchema) }).strict();
export type ConfigReportRead = z.infer<typeof configReportReadSchema>;
