import { z } from "zod";

/** The uses `doctor --for` can judge; each needs a set of checks (src/doctor/uses.ts). */
export const doctorUses = ["demo", "run", "verify", "queue", "test"] as const;
export type DoctorUse = (typeof doctorUses)[number];

export const doctorCheckSchema = z
  .object({
    /** Stable id: node, git, python3, a test runner (pytest, unittest), bwrap, userns, cgroups, overlay, redis-server, chromium, agent:NAME, cache. */
    id: z.string(),
    ok: z.boolean(),
    /** Version or what was found; why not when `ok` is false. */
    detail: z.string(),
    /** What it enables, in a few words. */
    enables: z.string(),
    /** The one command that installs or fixes it (null when there is none to give). */
    install: z.string().nullable(),
  })
  .strict();

/** `switch-swe doctor --json` (`switch-swe.doctor/1`). */
export const doctorReportSchema = z
  .object({
    format: z.literal("switch-swe.doctor/1"),
    for: z.enum(doctorUses),
    /** True when every check the use needs is ok (the exit code is 0 then, else 1). */
    ready: z.boolean(),
    /** The ids of the checks the use needs that failed. */
    missing: z.array(z.string()),
    checks: z.array(doctorCheckSchema),
  })
  .strict();

export type DoctorCheck = z.infer<typeof doctorCheckSchema>;
export type DoctorReport = z.infer<typeof doctorReportSchema>;
