import type { Command } from "commander";
import { inputError } from "../core/errors.js";
import type { Writer } from "../mine/request-writer.js";
import { WRITER_SYSTEM_PROMPT } from "../mine/writer-prompt.js";
import type { WriteSummary } from "../mine/write-requests.js";
import { KNOWN_BASE_URLS, parseTemperature, providerModel } from "./model-endpoint.js";
import { parsePositive } from "./options.js";

/** The writer model's flags, shared by `tasks write-requests` and `tasks mine`; the endpoint works as `handoff run`'s. */
export interface WriterFlags {
  writerModel?: { provider: string; model: string };
  writerBaseUrl?: string;
  writerApiKeyEnv: string;
  writerTemperature: number | null;
  writerTimeoutS: number;
}

/** PROVIDER:MODEL as `handoff run --model` takes it; PROVIDER/MODEL is accepted too. */
function writerModel(value: string): { provider: string; model: string } {
  try {
    return providerModel(value, "--writer-model");
  } catch (e) {
    const slash = value.indexOf("/");
    if (slash <= 0 || slash === value.length - 1 || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value.slice(0, slash))) throw e;
    return { provider: value.slice(0, slash), model: value.slice(slash + 1) };
  }
}

export function addWriterOptions(cmd: Command, required: boolean): Command {
  const help = "writer model that rewrites request texts as a user's request (PROVIDER:MODEL, e.g. openai:gpt-4.1-2025-04-14)";
  if (required) cmd.requiredOption("--writer-model <provider:model>", help, writerModel);
  else cmd.option("--writer-model <provider:model>", help, writerModel);
  return cmd
    .option("--writer-base-url <url>", `OpenAI-compatible base URL of the writer (default for ${Object.keys(KNOWN_BASE_URLS).join(", ")})`)
    .option(
      "--writer-api-key-env <name>",
      "environment variable holding the writer's API key (may be unset for local servers)",
      "OPENAI_API_KEY",
    )
    .option(
      "--writer-temperature <t>",
      'writer sampling temperature, or "default" to send none',
      parseTemperature("--writer-temperature"),
      0,
    )
    .option("--writer-timeout-s <n>", "deadline of one writer request", parsePositive("--writer-timeout-s"), 120);
}

/** Checks the flags before any work starts (a missing base URL must not surface after hours of mining). */
export function checkWriterFlags(o: WriterFlags): string | undefined {
  if (!o.writerModel) return undefined;
  const baseURL = o.writerBaseUrl ?? KNOWN_BASE_URLS[o.writerModel.provider];
  if (baseURL === undefined) throw inputError("--writer-base-url", "", `needed for provider "${o.writerModel.provider}"`);
  if (!/^https?:\/\//.test(baseURL)) throw inputError("--writer-base-url", "", `must be an http(s) URL, got "${baseURL}"`);
  return baseURL;
}

/** The writer: the AI SDK client of `handoff run`, one fresh conversation per request, no silent retries. */
export async function writerFromFlags(o: WriterFlags): Promise<Writer | undefined> {
  const baseURL = checkWriterFlags(o);
  if (!o.writerModel || baseURL === undefined) return undefined;
  const apiKey = process.env[o.writerApiKeyEnv] || undefined;
  if (apiKey === undefined) process.stderr.write(`note: ${o.writerApiKeyEnv} is not set; writer requests carry no API key\n`);
  const { openAICompatibleClient } = await import("../handoff/model-client.js");
  const ask = openAICompatibleClient({
    provider: o.writerModel.provider,
    model: o.writerModel.model,
    baseURL,
    ...(apiKey ? { apiKey } : {}),
    temperature: o.writerTemperature,
    system: WRITER_SYSTEM_PROMPT,
    maxOutputTokens: null,
    seed: null,
    timeoutMs: o.writerTimeoutS * 1000,
  });
  return { model: `${o.writerModel.provider}:${o.writerModel.model}`, ask };
}

/** The summary line, and on a failure the one-line reason and how to resume; returns the exit code. */
export function reportWriting(target: string, s: WriteSummary, resume: string): number {
  process.stdout.write(
    `${target}: ${s.written} request text(s) written, ${s.refused} rewrite(s) refused (derived text kept, reason recorded), ${s.skipped} left as they were\n`,
  );
  if (s.failure === undefined) return 0;
  process.stderr.write(`error: ${s.failure}\n`);
  process.stderr.write(`that stage is unchanged and every text written before it is kept; resume with: ${resume}\n`);
  return 1;
}
