import { z } from "zod";
import type { StageVerdict } from "../mine/stage-tests.js";
import { rejectReasons } from "../mine/stage-tests.js";
import type { QualifyReport } from "../qualify/qualify-task.js";

const ids = z.array(z.string());
const failingModule = z.object({ module: z.string(), reason: z.string() }).strict();

/** The verdict on a candidate's stages, as `stageTests` returns it. */
const stageVerdictSchema = z.discriminatedUnion("ok", [
  z
    .object({
      ok: z.literal(true),
      stageTests: z.array(ids),
      p2p: ids,
      unstable: ids,
      regression: ids,
      failingModules: z.array(failingModule),
      importGated: z.array(z.object({ test: z.string(), stage: z.number().int(), cause: z.string() }).strict()),
    })
    .strict(),
  z
    .object({ ok: z.literal(false), reason: z.enum(rejectReasons), detail: z.string(), failingModules: z.array(failingModule).optional() })
    .strict(),
]);

const suiteRunSchema = z
  .object({
    state: z.enum(["without", "with"]),
    run: z.number().int(),
    exit_code: z.number().int().nullable(),
    timed_out: z.boolean(),
    result_source: z.enum(["junit", "none"]),
    tests: z.number().int(),
    duration_ms: z.number(),
  })
  .strict();

const lists = z.object({ fail_to_pass: ids, pass_to_pass: ids }).strict();

/** A task's qualification report, as `qualifyTask` returns it. */
const qualifyReportSchema = z
  .object({
    task: z.string(),
    qualified: z.boolean(),
    problems: z.array(z.string()),
    differences: z.array(z.string()),
    observed: z.object({ fail_to_pass: ids, pass_to_pass: z.number().int(), unstable: ids, other: ids }).strict(),
    declared: lists,
    proposed: lists.nullable(),
    runs: z.array(suiteRunSchema),
    setup_cached: z.boolean(),
    duration_ms: z.number(),
  })
  .strict();

/**
 * What a worker sends back for a mining or qualification job. `infra_fault`: the job could not be run
 * here (a bundle missing, the repository giving other patches); the coordinator runs it again elsewhere.
 */
export const taskResultSchema = z.discriminatedUnion("kind", [
  z
    .object({
      format: z.literal("switch-swe.queue-task-result/1"),
      kind: z.literal("mine"),
      worker: z.string(),
      candidate: z.string(),
      verdict: stageVerdictSchema,
      test_runs: z.number().int().nonnegative(),
    })
    .strict(),
  z
    .object({
      format: z.literal("switch-swe.queue-task-result/1"),
      kind: z.literal("qualify"),
      worker: z.string(),
      report: qualifyReportSchema,
    })
    .strict(),
  z
    .object({ format: z.literal("switch-swe.queue-task-result/1"), kind: z.literal("infra_fault"), worker: z.string(), detail: z.string() })
    .strict(),
]);

export type TaskResult = z.infer<typeof taskResultSchema>;

// The schemas describe exactly the values the local code returns (a change there fails the type check here).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameVerdict: Same<z.infer<typeof stageVerdictSchema>, StageVerdict> = true;
const sameReport: Same<z.infer<typeof qualifyReportSchema>, QualifyReport> = true;
void sameVerdict;
void sameReport;
