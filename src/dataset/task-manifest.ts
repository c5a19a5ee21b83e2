import { z } from "zod";
import { environmentSchema, repoNamePattern, sourceRulesSchema, taskIdPattern, verifierSchema } from "./schema.js";
import { writerRecordSchema } from "./writer-record.js";

/**
 * A dataset shipped as a manifest (`switch-swe.task-manifest/1`): for each task, the upstream
 * repository, the base and stage commits, the test ids, provenance and digests; no upstream code
 * or tests. `datasets materialize` derives the patches from the repository and checks every digest.
 * Request texts are present only when written for the dataset; otherwise they are derived from the
 * upstream commit messages at materialization.
 *
 * `/2` adds a stage's `writer` record (a text written by a writer model, or a rewrite refused by the
 * check); `taskManifestReadSchema` still reads `/1` files, which have none.
 */

export const TASK_MANIFEST_FORMAT = "switch-swe.task-manifest/2";

const commit = z.string().regex(/^[0-9a-f]{40}$/, "a full commit id (40 hex digits)");
const digest = z.string().regex(/^[0-9a-f]{64}$/, "a sha256 (64 hex digits)");

export const manifestRepoSchema = z
  .object({
    /** Where users clone it from (a URL; a local path only for private manifests). */
    git: z.string().min(1),
    /** The upstream license (SPDX id), recorded for whoever materializes it. */
    license: z.string().min(1).optional(),
    /** Source and test classification, fixed before tasks were selected. */
    source: sourceRulesSchema,
    tests: z.array(z.string().min(1)),
    environment: environmentSchema.optional(),
  })
  .strict();

export const manifestStageSchema = z
  .object({
    /** The commit that ends this stage; the stage patch is the non-test diff from the previous cut (or the base). */
    cut: commit,
    /** Only when written for the dataset (by hand or by a writer model); else derived from the commit messages. */
    text: z.string().trim().min(1).optional(),
    /** A writer model's record: `written` comes with `text`, `refused` without it (the derived text stays). */
    writer: writerRecordSchema.optional(),
    provenance: z.string().min(1),
    tests: z.array(z.string().min(1)),
    patch_sha256: digest,
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.writer?.status === "written" && s.text === undefined) ctx.addIssue({ code: "custom", path: ["text"], message: "a stage written by a writer model needs its text" });
    if (s.writer?.status === "refused" && s.text !== undefined) ctx.addIssue({ code: "custom", path: ["text"], message: "a stage whose rewrite was refused keeps the derived text, so it has no text here" });
  });

export const manifestTaskSchema = z
  .object({
    id: z.string().regex(taskIdPattern),
    repo: z.string().regex(repoNamePattern),
    base: commit,
    environment: z.string().min(1).optional(),
    provenance: z.string().min(1),
    stages: z.array(manifestStageSchema).min(1),
    tests_patch_sha256: digest,
    verifier: verifierSchema,
  })
  .strict();

export const taskManifestSchema = z
  .object({
    format: z.literal(TASK_MANIFEST_FORMAT),
    name: z.string().min(1),
    version: z.string().min(1),
    repos: z.record(z.string().regex(repoNamePattern), manifestRepoSchema),
    tasks: z.array(manifestTaskSchema),
  })
  .strict();

/** Reads `/2` and the older `/1` (no writer records); the result is always `/2`. */
export const taskManifestReadSchema = taskManifestSchema
  .extend({ format: z.enum(["switch-swe.task-manifest/1", TASK_MANIFEST_FORMAT]) })
  .transform((m): TaskManifest => ({ ...m, format: TASK_MANIFEST_FORMAT }));

export type ManifestRepo = z.infer<typeof manifestRepoSchema>;
export type ManifestTask = z.infer<typeof manifestTaskSchema>;
export type TaskManifest = z.infer<typeof taskManifestSchema>;
