import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeJsonAtomic } from "../core/json-file.js";
import { stateWriteSchema } from "../formats/rcm-state-write.js";
import type { AuxUsage } from "./aux-model.js";
import type { RcmMemory } from "./engine.js";
import type { RcmMode } from "./history.js";

export const stateFileFormat = "switch-swe.rcm-state/1";

const itemSchema = z
  .object({
    text: z.string(),
    kind: z.enum(["requirement", "observation", "claim"]),
    source: z.string(),
    request: z.number(),
    supported_by: z.string().optional(),
    paths: z.array(z.string()).optional(),
    tests: z.boolean().optional(),
    refs: z.array(z.string()).optional(),
  })
  .strict();

const taskStateSchema = z
  .object({
    task: z.string(),
    workspace: z.string().nullable(),
    goal: itemSchema.nullable(),
    constraints: z.array(itemSchema),
    completed: z.array(itemSchema),
    pending: z.array(itemSchema),
    files: z.array(itemSchema),
    symbols: z.array(itemSchema),
    uncertainties: z.array(itemSchema),
    /** Absent in state files written before it existed. */
    asked: z.array(itemSchema).default([]),
    covered: z.array(z.string()),
    requests: z.number(),
  })
  .strict();

const assignmentSchema = z
  .object({
    task: z.string().nullable(),
    confidence: z.number(),
    method: z.enum(["first", "workspace", "refs", "multi", "similarity", "aux", "shared", "closing", "follow-up", "new", "ambiguous"]),
    also: z.array(z.string()).optional(),
    confirmed: z.number().optional(),
  })
  .strict();

/** The per-session state file (docs/rcm.md, "The state file"). */
export const stateFileSchema = z
  .object({
    format: z.literal(stateFileFormat),
    session: z.string(),
    mode: z.enum(["off", "router", "rcm"]),
    updated_at: z.string(),
    router: z
      .object({
        tasks: z.array(
          z.object({ id: z.string(), workspace: z.string().nullable(), label: z.string(), groups: z.array(z.string()) }).strict(),
        ),
        assignments: z.record(z.string(), assignmentSchema),
        next: z.number().int().positive(),
      })
      .strict(),
    states: z.record(z.string(), taskStateSchema),
    /** Auxiliary model calls spent by the session, against the `auxBudget` option. */
    aux: z.object({ calls: z.number().int().nonnegative(), tokens: z.number().nonnegative(), exhausted: z.boolean() }).strict().optional(),
    /** Model-written state: batches the model wrote, batches left extractive (and why), items dropped by the reference check. */
    writes: z
      .object({
        model: z.number().int().nonnegative(),
        extractive: z.number().int().nonnegative(),
        dropped: z.number().int().nonnegative(),
        recent: z.array(stateWriteSchema),
      })
      .strict()
      .optional(),
    /** Summary of the last assembled step, for people inspecting the file. */
    last: z
      .object({
        group: z.string(),
        active: z.string().nullable(),
        confidence: z.number(),
        filtered: z.boolean(),
        dropped: z.number(),
        elided: z.number(),
        record_chars: z.number(),
      })
      .strict()
      .optional(),
    compactions: z.number().int().nonnegative().default(0),
  })
  .strict();

export type StateFile = z.infer<typeof stateFileSchema>;

function safeName(session: string): string {
  return session.replace(/[^A-Za-z0-9_.-]/g, "_");
}

export const stateFiles = {
  state: (dir: string, session: string) => join(dir, `${safeName(session)}.json`),
  usage: (dir: string, session: string) => join(dir, `${safeName(session)}.usage.jsonl`),
  log: (dir: string) => join(dir, "rcm.log"),
};

/** The saved state of a session, or null when there is none; a damaged file is reported by throwing. */
export function loadStateFile(dir: string, session: string): StateFile | null {
  const file = stateFiles.state(dir, session);
  if (!existsSync(file)) return null;
  const parsed = stateFileSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file}: not a valid RCM state file: ${parsed.error.issues[0]?.message ?? ""}`);
  return parsed.data;
}

export function saveStateFile(
  dir: string,
  session: string,
  mode: RcmMode,
  memory: RcmMemory,
  extra: Pick<StateFile, "last" | "compactions">,
): void {
  const file: StateFile = {
    format: stateFileFormat,
    session,
    mode,
    updated_at: new Date().toISOString(),
    router: memory.router,
    states: memory.states,
    ...(memory.aux ? { aux: memory.aux } : {}),
    ...(memory.writes ? { writes: memory.writes } : {}),
    ...(extra.last ? { last: extra.last } : {}),
    compactions: extra.compactions,
  };
  writeJsonAtomic(stateFiles.state(dir, session), file);
}

export function removeStateFiles(dir: string, session: string): void {
  rmSync(stateFiles.state(dir, session), { force: true });
  rmSync(stateFiles.usage(dir, session), { force: true });
}

/** Appends auxiliary-model usage; the switch-swe OpenCode agent turns these lines into model_call events. */
export function appendAuxUsage(dir: string, session: string, usage: readonly AuxUsage[]): void {
  if (usage.length === 0) return;
  mkdirSync(dir, { recursive: true });
  const time = new Date().toISOString();
  appendFileSync(stateFiles.usage(dir, session), usage.map((u) => `${JSON.stringify({ time, ...u })}\n`).join(""));
}

export function appendLog(dir: string, line: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    appendFileSync(stateFiles.log(dir), `${new Date().toISOString()} ${line}\n`);
  } catch {
    // logging must never break the host
  }
}
