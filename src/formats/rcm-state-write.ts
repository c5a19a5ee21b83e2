import { z } from "zod";

/**
 * One batch of a task's groups folded into its record, and by whom (docs/rcm.md, "Model-written
 * state"): in the RCM state file (`writes.recent`) and in the proxy's log (`state_writes`).
 */
export const stateWriteSchema = z
  .object({
    task: z.string(),
    groups: z.array(z.string()),
    /** model: the auxiliary model's checked items replaced the batch's extractive ones; extractive: they did not (see reason). */
    by: z.enum(["model", "extractive"]),
    /** Why a batch meant for the model stayed extractive (an answer that is not JSON, a failed call, the budget spent). */
    reason: z.string().optional(),
    /** Model items used. */
    kept: z.number().int().nonnegative().optional(),
    /** Model items whose references did not check out (or files no message of the task names), with why. */
    dropped: z.array(z.object({ section: z.string(), text: z.string(), why: z.string() }).strict()).optional(),
  })
  .strict();

export type StateWrite = z.infer<typeof stateWriteSchema>;
