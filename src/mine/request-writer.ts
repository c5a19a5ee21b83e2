import type { WriterRecord } from "../dataset/writer-record.js";
import { checkRewrite, diffstatOf } from "./writer-check.js";
import { WRITER_PROMPT_VERSION, parseWriterReply, renderWriterPrompt, writerPromptSha256, type WriterStageInput } from "./writer-prompt.js";

/** One writer request in a fresh conversation (the CLI passes the AI SDK client of `handoff run`). */
export type AskWriter = (prompt: string) => Promise<{ text: string; modelVersion?: string }>;

export interface Writer {
  /** PROVIDER:MODEL, recorded with every text. */
  model: string;
  ask: AskWriter;
  now?: () => Date;
}

/** The request did not come back, or came back malformed: the stage is left as it was. */
export class WriterFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WriterFailed";
  }
}

export interface StageToWrite {
  taskProvenance: string;
  stage: number;
  stages: number;
  description: string;
  earlier: string[];
  patch: string;
  /** Private names of the touched files before and after the stage (private-names.ts): the check refuses them. */
  privateNames?: readonly string[];
}

export interface StageWritten {
  /** The text the stage has now: the rewrite, or the description when the rewrite was refused. */
  text: string;
  writer: WriterRecord;
}

async function askOnce(w: Writer, prompt: string): Promise<{ request: string; modelVersion?: string }> {
  let reply: Awaited<ReturnType<AskWriter>>;
  try {
    reply = await w.ask(prompt);
  } catch (e) {
    throw new WriterFailed(`${w.model}: request failed: ${(e as Error).message.split("\n")[0]}`);
  }
  const parsed = parseWriterReply(reply.text);
  if (!parsed.ok) throw new WriterFailed(`${w.model}: malformed reply: ${parsed.detail}`);
  return { request: parsed.request, ...(reply.modelVersion ? { modelVersion: reply.modelVersion } : {}) };
}

/**
 * Asks the writer for one stage's request and checks it; a refused rewrite is asked again once with
 * the reason, and refused a second time the description is kept and the reason recorded. Throws
 * WriterFailed when a request fails or the reply is malformed.
 */
export async function writeStageRequest(w: Writer, s: StageToWrite): Promise<StageWritten> {
  const diffstat = diffstatOf(s.patch);
  const input: WriterStageInput = {
    taskProvenance: s.taskProvenance,
    stage: s.stage,
    stages: s.stages,
    description: s.description,
    earlier: s.earlier,
    diffstat,
  };
  const given = [s.taskProvenance, s.description, ...s.earlier, ...diffstat];
  let refused: string | undefined;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const prompt = renderWriterPrompt(input, refused);
    const reply = await askOnce(w, prompt);
    refused = checkRewrite(reply.request, { patch: s.patch, given, privateNames: s.privateNames }) ?? undefined;
    const record = {
      model: w.model,
      ...(reply.modelVersion ? { model_version: reply.modelVersion } : {}),
      prompt_sha256: writerPromptSha256(prompt),
      prompt_version: WRITER_PROMPT_VERSION,
      at: (w.now ?? (() => new Date()))().toISOString(),
      attempts: attempt,
    };
    if (refused === undefined) return { text: reply.request, writer: { status: "written", ...record } };
    if (attempt === 2) return { text: s.description, writer: { status: "refused", ...record, reason: refused } };
  }
  throw new Error("unreachable");
}
