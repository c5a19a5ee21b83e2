import { z } from "zod";

export const workspaceNames = ["w00", "w01", "w02", "w03", "w04"] as const;
export const workspaceNameSchema = z.enum(workspaceNames);
export const localitySchema = z.enum(["near", "far"]);
export const conditionSchema = z.enum(["base", "switch"]);

/** One request of a schedule. `stage` is 1-based; finalization has no stage and no text of its own. */
export const scheduleStepSchema = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("stage"),
      task: z.string().min(1),
      workspace: workspaceNameSchema,
      stage: z.number().int().positive(),
      text: z.string().min(1),
    })
    .strict(),
  z
    .object({
      kind: z.literal("finalization"),
      task: z.string().min(1),
      workspace: workspaceNameSchema,
    })
    .strict(),
]);

export const sessionPairSchema = z
  .object({
    /** The pair id is the focus task id; session ids are `<focus>.base` and `<focus>.switch`. */
    id: z.string().min(1),
    focus: z.string().min(1),
    repo: z.string().min(1),
    locality: localitySchema,
    interruptions: z.array(z.string().min(1)).length(4),
    /** Workspace name -> task id, identical in both conditions. */
    workspaces: z.record(workspaceNameSchema, z.string().min(1)),
    /** Per task: the source files the locality was computed from (their units follow from the dataset's source rules). */
    source_files: z.record(z.string(), z.array(z.string())),
    schedules: z.object({ base: z.array(scheduleStepSchema).min(1), switch: z.array(scheduleStepSchema).min(1) }).strict(),
  })
  .strict()
  // One name for one thing: a pair is named by its focus task, so code may use either field.
  .refine((p) => p.id === p.focus, { path: ["id"], message: "must equal focus (a pair is named by its focus task)" });

/**
 * How often the focus must return in a switched session (the paper's C.5): `every-stage`, before every
 * focus stage after the first (stages − 1 returns, fewer only when the interruptions have fewer requests
 * in all); `at-most-two`, min(2, stages − 1), the rule of files built before 2026-12-07, which carry no
 * `focus_returns` field and are checked by the rule they were built under.
 */
export const focusReturnsRuleSchema = z.enum(["every-stage", "at-most-two"]);

export const excludedFocusSchema = z.object({ task: z.string(), reason: z.string() }).strict();

export const sessionsFileSchema = z
  .object({
    format: z.literal("switch-swe.sessions/1"),
    dataset: z.object({ name: z.string(), version: z.string() }).strict(),
    seed: z.number().int().nonnegative(),
    focus_returns: focusReturnsRuleSchema.optional(),
    pairs: z.array(sessionPairSchema),
    /** Focus tasks that could not form a session, with the constraint that left too few candidates. */
    excluded: z.array(excludedFocusSchema),
  })
  .strict();

export type WorkspaceName = z.infer<typeof workspaceNameSchema>;
export type Locality = z.infer<typeof localitySchema>;
export type Condition = z.infer<typeof conditionSchema>;
export type ScheduleStep = z.infer<typeof scheduleStepSchema>;
export type SessionPair = z.infer<typeof sessionPairSchema>;
export type SessionsFile = z.infer<typeof sessionsFileSchema>;
export type FocusReturnsRule = z.infer<typeof focusReturnsRuleSchema>;

/** The focus returns a switched schedule must have under `rule`, given the interruptions' requests in all. */
export function wantedFocusReturns(rule: FocusReturnsRule, stages: number, available: number): number {
  const byStages = rule === "every-stage" ? stages - 1 : Math.min(2, stages - 1);
  return Math.max(0, Math.min(byStages, available));
}

export function sessionId(pairId: string, condition: Condition): string {
  return `${pairId}.${condition}`;
}

/** Splits `<focus>.<condition>` back into its parts, or null when it is not a session id. */
export function parseSessionId(id: string): { pairId: string; condition: Condition } | null {
  const m = /^(.+)\.(base|switch)$/.exec(id);
  return m ? { pairId: m[1]!, condition: m[2] as Condition } : null;
}
