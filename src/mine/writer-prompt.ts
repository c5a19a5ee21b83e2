import { z } from "zod";
import { sha256 } from "../core/digest.js";

/**
 * The writer model's prompt (`--writer-model`): it sees a stage's own description (commit messages,
 * the merged branch), the task's earlier request texts and a diffstat (file names and line counts,
 * never code), and answers with the request a user would have written. docs/mining.md shows it whole.
 */

/** Bumped whenever the prompt or the check changes; recorded with every text. */
// /2: the check also refuses private names, statements about tests and references to later stages,
// and the system prompt says so.
export const WRITER_PROMPT_VERSION = "request-writer/2";

export const WRITER_SYSTEM_PROMPT = [
  "You write the message a user of a software project sends to a coding assistant to ask for one step of a change.",
  "You get the step's own description (its commit messages and, when known, the branch it was merged from),",
  "the requests the user already sent for the earlier steps of the same task, and the names of the files the step changes.",
  'Write what the user wants in the user\'s own words: the behaviour they need and why, as a request ("Please ...", "I need ...").',
  "Never say how to implement it: do not name functions, classes, variables or other identifiers the change introduces",
  "unless the description already names them, and never include code, diffs or code blocks.",
  "Never name private names of the code (names starting with an underscore), never say what tests check or name a test,",
  "and never refer to later steps: each request is sent on its own.",
  "Do not repeat the earlier requests; this one follows them. One to six sentences.",
  'Reply with one JSON object and nothing else: {"request": "<the request>"}',
].join("\n");

export interface WriterStageInput {
  /** Where the task comes from (the merge and its branch, or the chain of commits). */
  taskProvenance: string;
  stage: number;
  stages: number;
  /** The stage's own description: its commit messages. */
  description: string;
  /** The texts of the earlier stages, as they stand (written or derived). */
  earlier: string[];
  /** `path | +A -D` lines of the stage's patch. */
  diffstat: string[];
}

export function renderWriterPrompt(input: WriterStageInput, refusedBecause?: string): string {
  const earlier =
    input.earlier.length === 0
      ? ["(none: this is the first step)"]
      : input.earlier.map((t, i) => `${i + 1}. ${t.replace(/\s*\n\s*/g, " ")}`);
  const lines = [
    `Task: ${input.taskProvenance}`,
    `Step ${input.stage} of ${input.stages}.`,
    "",
    "Requests the user already sent for this task, in order:",
    ...earlier,
    "",
    "This step's own description:",
    "<<<",
    input.description.trim(),
    ">>>",
    "",
    "Files this step changes:",
    ...(input.diffstat.length > 0 ? input.diffstat.map((l) => `  ${l}`) : ["  (none listed)"]),
    "",
    "Write the user's request for this step.",
  ];
  if (refusedBecause !== undefined) lines.push("", `Your previous answer was refused: ${refusedBecause}. Write it again without that.`);
  return lines.join("\n");
}

/** What the prompt_sha256 of a writer record covers: the system prompt, a blank line, the user prompt. */
export function writerPromptSha256(prompt: string): string {
  return sha256(`${WRITER_SYSTEM_PROMPT}\n\n${prompt}`);
}

// Other keys a model adds (notes, reasoning) are ignored; the request is what counts.
const replySchema = z.object({ request: z.string() });

/** The request text of a reply, or why the reply is malformed. A ```json fence around the object is tolerated. */
export function parseWriterReply(text: string): { ok: true; request: string } | { ok: false; detail: string } {
  const body = text
    .trim()
    .replace(/^```(?:json)?\s*\n([\s\S]*?)\n?```$/, "$1")
    .trim();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    return { ok: false, detail: `not JSON (${(e as Error).message.split("\n")[0]}): ${JSON.stringify(text.slice(0, 80))}` };
  }
  const r = replySchema.safeParse(value);
  if (!r.success) return { ok: false, detail: `expected {"request": "..."}, got ${JSON.stringify(body.slice(0, 80))}` };
  return { ok: true, request: r.data.request.trim() };
}
