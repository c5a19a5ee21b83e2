import { z } from "zod";
import { estimateTokens, type RequestFacts } from "./answer.js";
import type { ScriptToolCall } from "./script.js";
import { isStateWritingCall, stateWriterAnswer } from "./state-writer-answer.js";

/**
 * A known-answer table for the context-bound model (`switch-swe.known-answers/1`): per stage of each
 * task, the key that stands for its requirements (a phrase of its request that RCM's state record
 * carries too), its whole request text (for the lossy summary), and what the model writes for it
 * depending on which earlier stages of the task it still knows.
 */
export const knownAnswersSchema = z
  .object({
    format: z.literal("switch-swe.known-answers/1"),
    /** Conversations (the prompt without its system part, as the server estimates tokens) above this many tokens overflow the model's window. */
    window: z.number().int().positive(),
    /** The shell tool the CLI under test offers, and the argument that holds the command. */
    shell: z.object({ name: z.string().min(1), command: z.string().min(1), extra: z.record(z.string(), z.unknown()).default({}) }).strict(),
    stages: z.array(
      z
        .object({
          task: z.string().min(1),
          stage: z.number().int().positive(),
          key: z.string().min(10),
          text: z.string().min(1),
          /** One entry per set of earlier stages known (sorted stage numbers): the files as the model writes them. */
          writes: z.array(z.object({ known: z.array(z.number().int().positive()), files: z.record(z.string(), z.string()) }).strict()),
        })
        .strict(),
    ),
  })
  .strict();

export type KnownAnswers = z.infer<typeof knownAnswersSchema>;
type Stage = KnownAnswers["stages"][number];

/** What the context-bound model answers: text and tool calls, and the input tokens it reports; or that the prompt is too long. */
export interface BoundAnswer {
  text: string;
  toolCalls: ScriptToolCall[];
  inputTokens: number;
  /** Set when the conversation overflows the window: the API's "prompt is too long" error, on which CLIs compact. */
  tooLong?: string;
}

// Claude Code's compaction request, OpenCode 1.18.33's (its summary template), and generic wordings.
const compactionPrompt =
  /create a detailed summary of the conversation|summari[sz]e (the|this) conversation|write a summary|Output exactly the Markdown structure shown inside <template>/i;
const finalization = /^(Repository:.*\n)?(Workspace:.*\n)?\s*Finish the task in this workspace/m;
/** As the text stands in a JSON body. */
const inJson = (s: string) => JSON.stringify(s).slice(1, -1);

/** The no-op that marks a stage's writes, so that a later step of the same request sees they were made. */
const marker = (s: Stage) => `kb-${s.task}-${s.stage}`;

function shellWrite(workspace: string, path: string, content: string, s: Stage): string {
  const b64 = Buffer.from(content, "utf8").toString("base64");
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
  return `: ${marker(s)}; mkdir -p '${workspace}/${dir}' && printf '%s' '${b64}' | base64 -d > '${workspace}/${path}'`;
}

/**
 * The prompt without its system part (`system`, `instructions`, `systemInstruction`, or an OpenAI chat
 * list's `system`/`developer` messages): the window holds the conversation.
 */
function conversationPart(prompt: unknown): unknown {
  if (Array.isArray(prompt))
    return prompt.filter(
      (m) => !(m && typeof m === "object" && ["system", "developer"].includes((m as { role?: unknown }).role as string)),
    );
  if (!prompt || typeof prompt !== "object") return prompt;
  return Object.fromEntries(Object.entries(prompt).filter(([k]) => !["system", "instructions", "systemInstruction"].includes(k)));
}

/** The workspace named on the `Workspace:` line of the message holding the stage's request. */
function workspaceOf(prompt: string, s: Stage): string | null {
  const at = prompt.lastIndexOf(inJson(s.key));
  if (at < 0) return null;
  const before = prompt.slice(Math.max(0, at - 4000), at);
  const all = [...before.matchAll(/Workspace: ([^\\"]+?)\\n/g)];
  return all.length > 0 ? all[all.length - 1]![1]! : null;
}

/**
 * The context-bound model: it answers a stage's request by writing that stage's files as the
 * reference does, but only with the earlier stages of the task whose key is in its input (the request
 * itself, a summary or a state record that carries it): a stage it does not see is not implemented.
 * Its window is small: a conversation above it gets the API's "prompt is too long" error, on which the
 * CLI compacts; its summary keeps only the latest request (a lossy summarizer).
 */
export function contextBoundAnswer(table: KnownAnswers, facts: RequestFacts): BoundAnswer {
  const prompt = JSON.stringify(facts.prompt) ?? "";
  const estimate = estimateTokens(JSON.stringify(conversationPart(facts.prompt)) ?? "");
  const answer = (text: string, toolCalls: ScriptToolCall[] = []): BoundAnswer => ({ text, toolCalls, inputTokens: estimate });
  const present = (s: Stage) => prompt.includes(inJson(s.key));
  const last = table.stages.filter(present).sort((a, b) => prompt.lastIndexOf(inJson(b.key)) - prompt.lastIndexOf(inJson(a.key)))[0];
  // RCM's state-writing call (model-written state): a state citing the batch's messages.
  if (!facts.hasTools && isStateWritingCall(prompt)) return answer(stateWriterAnswer(facts.lastUserText));
  if (compactionPrompt.test(facts.lastUserText))
    return answer(last ? `<summary>\nThe latest request:\n${last.text}\n</summary>` : "<summary>\nNothing was asked.\n</summary>");
  // Only the summary request may exceed the window (it is what makes the conversation fit again).
  if (estimate > table.window) return { ...answer(""), tooLong: `prompt is too long: ${estimate} tokens > ${table.window} maximum` };
  if (finalization.test(facts.lastUserText)) return answer("The task is complete and ready for evaluation.");
  // The request being answered: the stage whose key comes last in the latest user message (a record in
  // front of it may quote earlier stages).
  const current =
    table.stages
      .filter((s) => facts.lastUserText.includes(s.key))
      .sort((a, b) => facts.lastUserText.lastIndexOf(b.key) - facts.lastUserText.lastIndexOf(a.key))[0] ?? last;
  if (!current || !facts.hasTools) return answer("Done.");
  if (prompt.includes(marker(current))) return answer(`I implemented what I know of ${current.task}, stage ${current.stage}.`);
  const known = table.stages.filter((s) => s.task === current.task && s.stage < current.stage && present(s)).map((s) => s.stage);
  const writes = current.writes.find((w) => w.known.join(",") === known.join(",")) ?? current.writes[0];
  const workspace = workspaceOf(prompt, current);
  if (!writes || workspace === null) return answer("I cannot tell where to work.");
  return answer(
    "",
    Object.entries(writes.files).map(([path, content]) => ({
      name: table.shell.name,
      arguments: { ...table.shell.extra, [table.shell.command]: shellWrite(workspace, path, content, current) },
    })),
  );
}
