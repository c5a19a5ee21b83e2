import { z } from "zod";

/** What `datasets audit` can find; docs/mining.md ("Auditing a manifest") gives each rule and its rationale. */
export const auditKinds = [
  "untested-stage",
  "no-behaviour-stage",
  "base-broken",
  "p2p-fails-at-base",
  "f2p-elsewhere",
  "f2p-wrong-stage",
  "order-dependent",
  "repair-stage",
  "several-features",
  "leak",
  "commit-text",
  "authored-contradicted",
  "unreviewed",
  "env-failure",
] as const;
export type AuditKind = (typeof auditKinds)[number];

export const severitySchema = z.enum(["error", "warning"]);
export type Severity = z.infer<typeof severitySchema>;

export const auditFindingSchema = z
  .object({
    kind: z.enum(auditKinds),
    severity: severitySchema,
    /** 1-based stage the finding is about; null for the task as a whole. */
    stage: z.number().int().positive().nullable(),
    /** What is wrong, in a sentence. */
    what: z.string().min(1),
    /** What shows it: the words, lines or test ids read, or the runs' outcomes. */
    evidence: z.string(),
  })
  .strict();

export const auditTaskSchema = z
  .object({
    id: z.string().min(1),
    repo: z.string().min(1),
    manifest: z.string().min(1),
    stages: z.number().int().positive(),
    findings: z.array(auditFindingSchema),
  })
  .strict();

/** `switch-swe datasets audit --json` (`switch-swe.audit/1`). */
export const auditReportSchema = z
  .object({
    format: z.literal("switch-swe.audit/1"),
    manifests: z.array(z.string()),
    /** Whether the checks that run tests ran (`--run-tests`). */
    run_tests: z.boolean(),
    /** Repositories whose patches were read (`--repo`): their patch checks ran; the others' did not. */
    repos_read: z.array(z.string()),
    summary: z
      .object({
        tasks: z.number().int().nonnegative(),
        stages: z.number().int().nonnegative(),
        errors: z.number().int().nonnegative(),
        warnings: z.number().int().nonnegative(),
        by_kind: z.partialRecord(z.enum(auditKinds), z.number().int().positive()),
      })
      .strict(),
    tasks: z.array(auditTaskSchema),
  })
  .strict();

export type AuditFinding = z.infer<typeof auditFindingSchema>;
export type AuditTask = z.infer<typeof auditTaskSchema>;
export type AuditReport = z.infer<typeof auditReportSchema>;
