import { z } from "zod";
import { inputError, zodProblems, type Problem } from "../core/errors.js";
import { readJson, readTextFile } from "../core/json-file.js";
import { patchFiles } from "../dataset/patch-files.js";
import { taskIdPattern } from "../dataset/schema.js";

function required(what: string) {
  return { error: (iss: { input: unknown }) => (iss.input === undefined ? "required" : what) };
}

/** A list of test ids, given as an array or as a JSON-encoded array (SWE-bench ships both). */
const testList = z.preprocess(
  (v) => {
    if (typeof v !== "string") return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  },
  z.array(z.string().min(1), required("an array of test ids (or a JSON-encoded one)")),
);

const patchText = z
  .string(required("a unified diff"))
  .refine((t) => t.trim() !== "", "empty")
  .superRefine((t, ctx) => {
    try {
      patchFiles(t);
    } catch (e) {
      ctx.addIssue({ code: "custom", message: `does not parse: ${(e as Error).message}` });
    }
  });

export const swebenchInstanceSchema = z.object({
  instance_id: z.string(required("a string")).regex(taskIdPattern, "instance ids become task ids: letters, digits, . _ -"),
  repo: z.string(required("a string")).regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "owner/name"),
  base_commit: z.string(required("a string")).regex(/^[0-9a-f]{7,40}$/, "a commit id (7 to 40 hex digits)"),
  patch: patchText,
  test_patch: patchText,
  problem_statement: z.string(required("a string")).trim().min(1, "empty"),
  FAIL_TO_PASS: testList.refine((l) => l.length > 0, "no fail-to-pass test"),
  PASS_TO_PASS: testList,
  /** SWE-bench's version of the repository (chooses the environment variant). */
  version: z.union([z.string(), z.number()]).transform(String).optional(),
  environment_setup_commit: z
    .string()
    .regex(/^[0-9a-f]{7,40}$/, "a commit id (7 to 40 hex digits)")
    .optional(),
});

export type SwebenchInstance = z.infer<typeof swebenchInstanceSchema>;

/** One later stage of an instance: its request and its own reference diff (on top of the previous stages). */
export const followUpSchema = z
  .object({
    text: z.string().trim().min(1, "empty"),
    patch: patchText,
    /** F2P tests this stage introduces (they must be in test_patch or in this entry's test_patch). */
    tests: z.array(z.string().min(1)).optional(),
    /** A diff adding this stage's tests, appended to the task's tests.patch. */
    test_patch: patchText.optional(),
    provenance: z.string().optional(),
  })
  .strict();

export const followUpsFileSchema = z.record(
  z.string(),
  z.array(
    z.unknown().superRefine((v, ctx) => {
      if (typeof v === "string") {
        ctx.addIssue({
          code: "custom",
          message:
            'a follow-up needs its own reference diff: {"text": ..., "patch": ...} (the instance\'s patch is the reference for stage 1 only)',
        });
        return;
      }
      const r = followUpSchema.safeParse(v);
      if (!r.success) for (const i of r.error.issues) ctx.addIssue({ code: "custom", message: i.message, path: i.path });
    }),
  ),
);

export type FollowUp = z.infer<typeof followUpSchema>;

/** The raw records of a JSON array or a JSONL file; a line that is not JSON is a problem, not the end. */
export function readInstanceRecords(file: string): { records: Array<{ index: number; value: unknown }>; problems: Problem[] } {
  const text = readTextFile(file);
  const trimmed = text.trimStart();
  if (trimmed.startsWith("[")) {
    const all = readJson(file);
    if (!Array.isArray(all)) throw inputError(file, "", "expected a JSON array of instances or JSON lines");
    return { records: all.map((value, index) => ({ index, value })), problems: [] };
  }
  const records: Array<{ index: number; value: unknown }> = [];
  const problems: Problem[] = [];
  let index = 0;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === "") continue;
    try {
      records.push({ index, value: JSON.parse(line) as unknown });
    } catch (e) {
      problems.push({ file, path: `[${index}]`, message: `not valid JSON (${(e as Error).message})` });
    }
    index++;
  }
  return { records, problems };
}

/** Checks one record; problems are reported as `FILE: [i].field: what is wrong`. */
export function parseInstance(file: string, index: number, value: unknown): { instance: SwebenchInstance | null; problems: Problem[] } {
  const r = swebenchInstanceSchema.safeParse(value);
  if (r.success) return { instance: r.data, problems: [] };
  const problems = zodProblems(file, r.error).map((p) => ({ ...p, path: p.path ? `[${index}].${p.path}` : `[${index}]` }));
  return { instance: null, problems };
}
