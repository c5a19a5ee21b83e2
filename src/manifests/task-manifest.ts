import { z } from "zod";
import { AUTHORED, environmentSchema, repoNamePattern, sourceRulesSchema, taskIdPattern, verifierSchema } from "../dataset/schema.js";
import { sha256 } from "../core/digest.js";
import { writerRecordSchema } from "../dataset/writer-record.js";

/**
 * A dataset shipped as a manifest (`switch-swe.task-manifest/1`): for each task, the upstream
 * repository, the base and stage commits, the test ids, provenance and digests; no upstream code
 * or tests. `datasets materialize` derives the patches from the repository and checks every digest.
 * Request texts are present only when written for the dataset; otherwise they are derived from the
 * upstream commit messages at materialization.
 *
 * `/2` adds a stage's `writer` record (a text written by a writer model, or a rewrite refused by the
 * check); `taskManifestReadSchema` still reads `/1` files, which have none. `/2` was extended (files
 * without the new fields read as before) by benchmark-authored stages: a follow-up requirement written
 * for the dataset, appended after the upstream stages, whose request text, reference patch and
 * regression tests are our own text stored here with their digests (docs/mining.md).
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

const reviewSchema = z
  .object({
    /** Who read the text: a person's name or handle, or a model as PROVIDER:MODEL. */
    reader: z.string().trim().min(1),
    /** What the reading found: that the text asks for what the stage's tests check, or what it changed. */
    note: z.string().trim().min(1),
  })
  .strict();

export const manifestStageSchema = z
  .object({
    /** The commit that ends this stage; the stage patch is the non-test diff from the previous cut (or the base). Absent on an authored stage. */
    cut: commit.optional(),
    /** Only when written for the dataset (by hand or by a writer model); else derived from the commit messages. Required on an authored stage. */
    text: z.string().trim().min(1).optional(),
    /** A writer model's record: `written` comes with `text`, `refused` without it (the derived text stays). */
    writer: writerRecordSchema.optional(),
    /**
     * The request text is derived from commit messages (as `tasks mine` leaves every stage), not yet
     * written for the dataset: such a text never ships (`datasets check` refuses it). Absent in files
     * written before the marker, where a stage without `text` says the same.
     */
    draft: z.literal(true).optional(),
    /**
     * A second, independent reading of the request text (not by its writer): who read it and what they
     * found. Optional so older manifests load; `datasets audit` warns (`unreviewed`) where it is missing.
     */
    reviewed_by: reviewSchema.optional(),
    /** Where the stage comes from: the commit (upstream), or `benchmark-authored` (written for the dataset). */
    provenance: z.string().min(1),
    /** The F2P tests this stage's request justifies (the requirement→test map). */
    tests: z.array(z.string().min(1)),
    patch_sha256: digest,
    /** An authored stage's reference change (non-test files), our own text: no upstream code. */
    patch: z.string().min(1).optional(),
    /** An authored stage's regression tests (test files only), our own text, applied after the task's upstream tests. */
    tests_patch: z.string().min(1).optional(),
    tests_patch_sha256: digest.optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if (s.writer?.status === "written" && s.text === undefined) issue("text", "a stage written by a writer model needs its text");
    if (s.writer?.status === "refused" && s.text !== undefined)
      issue("text", "a stage whose rewrite was refused keeps the derived text, so it has no text here");
    if (s.provenance !== AUTHORED) {
      if (s.cut === undefined)
        issue("cut", `an upstream stage needs the commit that ends it (or provenance "${AUTHORED}" with its own patch)`);
      for (const f of ["patch", "tests_patch", "tests_patch_sha256"] as const)
        if (s[f] !== undefined)
          issue(f, `only a "${AUTHORED}" stage carries its own ${f}; an upstream stage's is derived from its commits`);
      return;
    }
    // An authored stage never mixes with upstream text: no commit, no derived text, no writer model.
    if (s.cut !== undefined) issue("cut", "an authored stage has no upstream commit");
    if (s.draft !== undefined) issue("draft", "an authored stage's text is written for the dataset, never a draft");
    if (s.writer !== undefined) issue("writer", "an authored stage's text is written for the dataset, not by a writer model");
    if (s.text === undefined) issue("text", "an authored stage needs its request text");
    if (s.patch === undefined) issue("patch", "an authored stage needs its reference patch");
    else if (sha256(s.patch) !== s.patch_sha256) issue("patch_sha256", `does not match the patch (its sha256 is ${sha256(s.patch)})`);
    if (s.tests_patch === undefined) issue("tests_patch", "an authored stage needs its own regression tests");
    else if (s.tests_patch_sha256 !== sha256(s.tests_patch))
      issue(
        "tests_patch_sha256",
        `${s.tests_patch_sha256 === undefined ? "missing" : "does not match the tests patch"} (its sha256 is ${sha256(s.tests_patch)})`,
      );
    if (s.tests.length === 0) issue("tests", "an authored stage needs the F2P tests its request justifies");
  });

/** Whether a stage was written for the dataset (its patch and tests are in the manifest) rather than derived from commits. */
export const isAuthored = (s: ManifestStage): boolean => s.provenance === AUTHORED;

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
  .strict()
  .superRefine((t, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: "custom", path, message });
    const firstAuthored = t.stages.findIndex(isAuthored);
    if (firstAuthored === 0)
      issue(["stages", 0, "provenance"], "authored stages extend an upstream task: the first stage comes from the repository's history");
    if (firstAuthored >= 0) {
      t.stages.forEach((s, k) => {
        if (k > firstAuthored && !isAuthored(s))
          issue(["stages", k, "provenance"], `an upstream stage after the authored stage ${firstAuthored + 1}: authored stages come last`);
      });
    }
    // The requirement→test map: each F2P test justified by exactly one stage's request.
    const f2p = new Set(t.verifier.fail_to_pass);
    const stageOf = new Map<string, number>();
    t.stages.forEach((s, k) => {
      for (const id of s.tests) {
        if (!f2p.has(id)) issue(["stages", k, "tests"], `${id} is not in verifier.fail_to_pass`);
        else if (stageOf.has(id)) issue(["stages", k, "tests"], `${id} is already mapped to stage ${stageOf.get(id)! + 1}`);
        else stageOf.set(id, k);
      }
    });
    if (t.stages.length > 1)
      for (const id of f2p)
        if (!stageOf.has(id))
          issue(["verifier", "fail_to_pass"], `${id} is mapped to no stage (list it in the tests of the stage whose request asks for it)`);
  });

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
export type ManifestStage = z.infer<typeof manifestStageSchema>;
export type ManifestTask = z.infer<typeof manifestTaskSchema>;
export type TaskManifest = z.infer<typeof taskManifestSchema>;
