import { z } from "zod";
import { writerRecordSchema } from "./writer-record.js";

/** Names in the formats: repositories and declared subsystems (task ids use the same alphabet). */
export const repoNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Globs in the project's path dialect (core/path-globs.ts: picomatch, dotfiles matched, repository-relative POSIX paths). */
const globs = z.array(z.string().min(1));

export const sourceRulesSchema = z
  .object({
    /** What counts as source. Default: common code file extensions. */
    include: globs.optional(),
    /** Excluded even when included. Default: tests, docs, examples, benchmarks. */
    exclude: globs.optional(),
    /**
     * Named groups of source files, for a repository whose directories do not say which part of it a
     * file belongs to (a flat package). A file's locality unit is the first group (in declaration
     * order) whose globs match it, else its immediate parent directory (dataset/source-files.ts).
     */
    subsystems: z
      .record(z.string(), globs)
      // Names and emptiness in one pass, so every bad group is reported, not only the first kind.
      .superRefine((groups, ctx) => {
        for (const [name, list] of Object.entries(groups)) {
          if (!repoNamePattern.test(name))
            ctx.addIssue({ code: "custom", path: [name], message: "a subsystem name is letters, digits, '.', '_' or '-'" });
          if (list.length === 0) ctx.addIssue({ code: "custom", path: [name], message: "a subsystem needs at least one glob" });
        }
      })
      .optional(),
  })
  .strict();

const environmentFields = {
  /** Shell commands run once in a fresh checkout before tests (cached per repo, base and commands). */
  setup: z.array(z.string().min(1)).optional(),
  /** Default test command; `{tests}` is replaced by the selected test ids, `{junit}` by the report path. */
  test_command: z.string().min(1).optional(),
  /**
   * The test runner the command starts, whose launcher the verifier runs in its place (src/testbed/test-runners.ts:
   * `pytest`, the default, or `unittest`, which also covers a project's own script that wraps unittest).
   */
  test_runner: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, "a test runner's name, such as pytest or unittest")
    .optional(),
  /**
   * The Python minor version ("3.11") the set-up's venv must have. Declaring it opts into the pinned
   * rule at set-up: the venv's interpreter and every installed package must be what the set-up pins.
   */
  python: z
    .string()
    .regex(/^3\.\d+$/, 'a Python minor version, e.g. "3.11"')
    .optional(),
};

/**
 * The environment of one version of a repository (SWE-bench's `version` → environment). With
 * `setup_commit` (SWE-bench's `environment_setup_commit`), set-up runs once at that commit and the
 * environment is shared by every task of the variant; without it, once per base commit.
 */
export const environmentVariantSchema = z.object({ ...environmentFields, setup_commit: z.string().min(1).optional() }).strict();

export const environmentSchema = z
  .object({
    ...environmentFields,
    /** Set-up runs once at this commit and the environment is shared by every task of the repository (unless a variant says otherwise). */
    setup_commit: z.string().min(1).optional(),
    /** Per-version environments, chosen by a task's `environment`; their fields replace the ones above. */
    variants: z.record(z.string().min(1), environmentVariantSchema).optional(),
  })
  .strict();

const repoCommon = {
  source: sourceRulesSchema.optional(),
  /** Globs of files the verifier treats as tests (dropped from artifacts). Default: see test-rules.ts. */
  tests: globs.optional(),
  environment: environmentSchema.optional(),
};

export const localRepoSchema = z.object({ path: z.string().min(1), ...repoCommon }).strict();

export const gitRepoSchema = z.object({ git: z.string().min(1), mirror: z.string().min(1).optional(), ...repoCommon }).strict();

type LocalRepo = z.infer<typeof localRepoSchema>;
type GitRepo = z.infer<typeof gitRepoSchema>;

/**
 * A repository is local (`path`) or remote (`git`). Chosen by its key rather than a plain union, so
 * a problem inside either shape (a bad source rule, say) is reported at its own field path.
 */
export const repoSchema = z.unknown().transform((value, ctx): LocalRepo | GitRepo => {
  const has = (key: string) => typeof value === "object" && value !== null && !Array.isArray(value) && key in value;
  const shape = has("path") ? localRepoSchema : has("git") ? gitRepoSchema : null;
  if (!shape) {
    ctx.addIssue({ code: "custom", message: 'a repository is {"path": ...} or {"git": URL, "mirror"?: ...}' });
    return z.NEVER;
  }
  const parsed = shape.safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: "custom" });
  return z.NEVER;
});

export const datasetManifestSchema = z
  .object({
    name: z.string().min(1),
    version: z.string().min(1),
    repos: z.record(z.string().regex(repoNamePattern, "repository names are letters, digits, . _ -"), repoSchema),
  })
  .strict();

export const taskIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The provenance of a stage written for the dataset (request, reference patch, regression tests) rather than taken from a repository's history. */
export const AUTHORED = "benchmark-authored";

export const requestSchema = z
  .object({
    text: z.string().trim().min(1, "a request needs text"),
    /** Where the request text came from (an issue, a review comment, written for the dataset; `benchmark-authored`: the whole stage was). */
    provenance: z.string().optional(),
    /** F2P test ids that this stage introduces. */
    tests: z.array(z.string().min(1)).optional(),
    /** Present when a writer model was asked for this text (`tasks write-requests`, `tasks mine --writer-model`). */
    writer: writerRecordSchema.optional(),
  })
  .strict();

export const verifierSchema = z
  .object({
    fail_to_pass: z.array(z.string().min(1)),
    pass_to_pass: z.array(z.string().min(1)),
    command: z.string().min(1).optional(),
    timeout_s: z.number().int().positive().default(1800),
  })
  .strict();

export const taskSchema = z
  .object({
    id: z.string().regex(taskIdPattern, "task ids are letters, digits, . _ -"),
    repo: z.string().min(1),
    base: z.string().min(1),
    /** Which of the repository's `environment.variants` the task needs (a version, or an environment set-up commit). */
    environment: z.string().min(1).optional(),
    requests: z.array(requestSchema).min(1, "a task needs at least one request"),
    verifier: verifierSchema,
  })
  .strict();

export type Environment = z.infer<typeof environmentSchema>;
export type RepoSpec = z.infer<typeof repoSchema>;
export type DatasetManifest = z.infer<typeof datasetManifestSchema>;
export type TaskSpec = z.infer<typeof taskSchema>;
