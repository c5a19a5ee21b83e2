import { RequestFailed, type AskModel } from "./model-reply.js";

export interface ModelClientOptions {
  provider: string;
  model: string;
  baseURL: string;
  /** Undefined: no Authorization header (local servers). */
  apiKey?: string;
  temperature: number | null;
  system: string;
  maxOutputTokens: number | null;
  seed: number | null;
  timeoutMs: number;
}

const int = (n: number | undefined): number | null => (typeof n === "number" && Number.isFinite(n) ? n : null);

/**
 * The AI SDK, loaded on the first request: it costs about a fifth of a second of CPU to load, which every
 * CLI command paid at start-up when it was imported statically, though only model-calling commands use it.
 */
async function aiSdk() {
  const [{ createOpenAICompatible }, { APICallError, generateText }] = await Promise.all([
    import("@ai-sdk/openai-compatible"),
    import("ai"),
  ]);
  return { createOpenAICompatible, APICallError, generateText };
}

/** The one place the handoff benchmark talks HTTP: an OpenAI-compatible chat endpoint via the AI SDK. */
export function openAICompatibleClient(o: ModelClientOptions): AskModel {
  return async (prompt) => {
    const { createOpenAICompatible, APICallError, generateText } = await aiSdk();
    const model = createOpenAICompatible({ name: o.provider, baseURL: o.baseURL, apiKey: o.apiKey, includeUsage: true }).chatModel(o.model);
    try {
      const result = await generateText({
        model,
        prompt,
        ...(o.system ? { system: o.system } : {}),
        ...(o.temperature !== null ? { temperature: o.temperature } : {}),
        ...(o.maxOutputTokens !== null ? { maxOutputTokens: o.maxOutputTokens } : {}),
        ...(o.seed !== null ? { seed: o.seed } : {}),
        // Retries are the runner's declared policy, never the library's silent default.
        maxRetries: 0,
        timeout: o.timeoutMs,
      });
      return {
        text: result.text,
        ...(result.reasoningText ? { reasoning: result.reasoningText } : {}),
        modelVersion: result.response.modelId,
        finishReason: result.finishReason,
        ...(result.response.id ? { responseId: result.response.id } : {}),
        usage: {
          input_tokens: int(result.usage.inputTokens),
          output_tokens: int(result.usage.outputTokens),
          total_tokens: int(result.usage.totalTokens),
        },
        warnings: (result.warnings ?? []).map((w) => JSON.stringify(w)),
      };
    } catch (e) {
      if (APICallError.isInstance(e)) throw new RequestFailed(`HTTP ${e.statusCode ?? "error"}: ${e.message}`.slice(0, 500), e.statusCode);
      throw new RequestFailed(e instanceof Error ? `${e.name}: ${e.message}`.slice(0, 500) : String(e));
    }
  };
}
