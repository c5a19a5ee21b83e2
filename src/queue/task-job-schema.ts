import { z } from "zod";
import { manifestRepoSchema, manifestTaskSchema } from "../manifests/task-manifest.js";

const runId = z.string().regex(/^[0-9a-f]{16}$/);
const digest = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * The test runs of one mining candidate (`tasks mine --queue`). The coordinator did the cheap part (the
 * pre-checks on diffs, the draft entry with its patches' digests); the worker derives the patches from
 * the repository bundle, checks them against those digests, and runs the tests of every state as a local
 * `tasks mine` would, in the test-run sandbox.
 */
export const mineJobSchema = z
  .object({
    kind: z.literal("mine"),
    run_id: runId,
    switch_swe_version: z.string().min(1),
    /** The mining dataset's name, the repository's name in it. */
    dataset_name: z.string().min(1),
    repo_name: z.string().min(1),
    /**
     * The repository as the manifest records it, but `git` where the coordinator reads it (its local path,
     * or a URL that each worker clones itself) and the environment with its pinned set-up commit.
     */
    repo: manifestRepoSchema,
    /** Digest of the repository's git bundle in the queue (null: `git` is a URL the worker clones). */
    bundle: digest.nullable(),
    /** The candidate as the report names it. */
    candidate: z.string().min(1),
    /** The draft manifest entry: base, cuts, digests of the patches; no tests yet. */
    entry: manifestTaskSchema,
    test_files: z.array(z.string().min(1)),
    runs: z.number().int().positive(),
    suite: z.enum(["whole", "touched"]),
  })
  .strict();

/** One task's qualification (`tasks qualify --queue`): the dataset travels as a session job's does. */
export const qualifyJobSchema = z
  .object({
    kind: z.literal("qualify"),
    run_id: runId,
    switch_swe_version: z.string().min(1),
    dataset: z.object({ name: z.string(), version: z.string(), digest, repos: z.record(z.string().min(1), digest).optional() }).strict(),
    task: z.string().min(1),
    runs: z.number().int().positive(),
    suite: z.enum(["whole", "touched"]),
  })
  .strict();

export const taskJobSchema = z.discriminatedUnion("kind", [mineJobSchema, qualifyJobSchema]);

export type MineJob = z.infer<typeof mineJobSchema>;
export type QualifyJob = z.infer<typeof qualifyJobSchema>;
export type TaskJob = z.infer<typeof taskJobSchema>;
