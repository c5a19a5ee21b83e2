import { z } from "zod";

/**
 * The auxiliary model's answer to a state-writing call (docs/rcm.md, "Model-written state"): what one
 * batch of a task's messages adds to the task's record. Every item cites the ids of the messages that
 * say it (`refs`, copied from the `[id]` labels of the call); RCM checks each reference before it uses
 * the item. Keys RCM does not know are ignored; a field of the wrong shape makes the whole answer
 * unusable (the batch stays extractive).
 */
const text = z.string().trim().min(1).max(1000);
const refs = z.array(z.string().min(1).max(200)).max(12);

/** A goal, constraint or progress item: its references are required (an item without one is dropped). */
const citedItem = z.object({ text, refs: refs.default([]) });
/** A pending item or an uncertainty: references are optional, checked when given. */
const looseItem = z.object({ text, refs: refs.optional() });

export const stateReplySchema = z.object({
  /** The task's goal, when this batch holds its first request. */
  goal: citedItem.nullable().optional(),
  constraints: z.array(citedItem).max(20).default([]),
  /** Work done (the record's "Completed" section). */
  progress: z.array(citedItem).max(20).default([]),
  /** Everything still open after the batch (it replaces the task's pending list); absent: no statement. */
  pending: z.array(looseItem).max(20).optional(),
  /** Relevant files, as paths. */
  files: z.array(z.string().trim().min(1).max(300)).max(30).default([]),
  uncertainties: z.array(looseItem).max(20).default([]),
});

export type StateReply = z.infer<typeof stateReplySchema>;
