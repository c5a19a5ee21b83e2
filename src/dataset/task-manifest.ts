import { z } from "zod";
import { environmentSchema, repoNamePattern, sourceRulesSchema, taskIdPattern, verifierSchema } from "./schema.js";

/**
 * A dataset shipped as a manifest (`switch-swe.task-manifest/1`): for each task, the upstream
 * repository, the base and stage commits, the test ids, provenance and digests; no upstream code
 * or tests. `datasets materialize` derives the patches from the repository and checks every digest.
 * Request texts are present only when written for the dataset; otherwise they are derived from the
 * upstream commit messages at materialization.
 */

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
    provenance: z.string().min(1),
    tests: z.array(z.string().min(1)),
    patch_sha256: digest,
  })
  .strict();

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
    format: z.literal("switch-swe.task-manifest/1"),
    name: z.string().min(1),
    version: z.string().min(1),
    repos: z.record(z.string().regex(repoNamePattern), manifestRepoSchema),
    tasks: z.array(manifestTaskSchema),
  })
  .strict();

export type ManifestRepo = z.infer<typeof manifestRepoSchema>;
export type ManifestTask = z.infer<typeof manifestTaskSchema>;
export type TaskManifest = z.infer<typeof taskManifestSchema>;
