import { partsText, sseStream, writeJson, type Answer, type Protocol } from "./answer.js";

type Content = { role?: unknown; parts?: unknown };

/** Text of the last user content with text parts (a content of function responses only is skipped). */
function lastUserText(contents: Content[]): string {
  for (const c of [...contents].reverse()) {
    if (c.role !== undefined && c.role !== "user") continue;
    const text = partsText(c.parts, (p) => typeof p.text === "string" && p.thought !== true);
    if (text !== "") return text;
  }
  return "";
}

function hasFunctionDeclarations(tools: unknown): boolean {
  return (
    Array.isArray(tools) &&
    tools.some(
      (t: unknown) =>
        Array.isArray((t as { functionDeclarations?: unknown })?.functionDeclarations) &&
        (t as { functionDeclarations: unknown[] }).functionDeclarations.length > 0,
    )
  );
}

/** usageMetadata: promptTokenCount includes the cached part; candidatesTokenCount excludes thoughts. */
function usageMetadata(a: Answer) {
  const u = a.usage;
  const candidates = Math.max(0, u.outputTokens - u.reasoningTokens);
  return {
    promptTokenCount: u.inputTokens,
    candidatesTokenCount: candidates,
    ...(u.cachedTokens > 0 ? { cachedContentTokenCount: u.cachedTokens } : {}),
    ...(u.reasoningTokens > 0 ? { thoughtsTokenCount: u.reasoningTokens } : {}),
    totalTokenCount: u.inputTokens + u.outputTokens,
  };
}

function parts(a: Answer): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (a.text !== "") out.push({ text: a.text });
  for (const c of a.toolCalls) out.push({ functionCall: { name: c.name, args: c.arguments } });
  return out;
}

function chunk(a: Answer, p: Record<string, unknown>[], final: boolean): Record<string, unknown> {
  return {
    candidates: [{ content: { role: "model", parts: p }, index: 0, ...(final ? { finishReason: "STOP" } : {}) }],
    ...(final ? { usageMetadata: usageMetadata(a) } : {}),
    modelVersion: a.model,
  };
}

const modelOf = (path: string) => /\/models\/([^/:]+):/.exec(path)?.[1];

/**
 * Gemini: `POST /v1beta/models/M:streamGenerateContent?alt=sse` (each SSE event a
 * GenerateContentResponse; text, then `functionCall` parts; finishReason and usageMetadata in the
 * last) and `…:generateContent` (one response).
 */
export const geminiGenerate: Protocol = {
  name: "gemini",
  kind: "generate",
  accepts: (method, path) => method === "POST" && /\/models\/[^/:]+:(streamGenerateContent|generateContent)$/.test(path),
  view: (body, path) => {
    const contents = Array.isArray(body.contents) ? (body.contents as Content[]) : [];
    const model = modelOf(path);
    return {
      lastUserText: lastUserText(contents),
      hasTools: hasFunctionDeclarations(body.tools),
      ...(model ? { model } : {}),
      stream: path.endsWith(":streamGenerateContent"),
      prompt: { systemInstruction: body.systemInstruction, contents },
    };
  },
  respond: (res, a, _id, { stream }) => {
    if (!stream) return writeJson(res, 200, chunk(a, parts(a), true));
    const s = sseStream(res);
    const all = parts(a);
    // Text first, then the calls with finishReason and usage, as the real API streams them.
    const text = all.filter((p) => "text" in p);
    const calls = all.filter((p) => !("text" in p));
    if (text.length > 0 && calls.length > 0) s.send(null, chunk(a, text, false));
    s.send(null, chunk(a, calls.length > 0 ? calls : text.length > 0 ? text : [{ text: "" }], true));
    s.end();
  },
  error: (res, status, message) =>
    writeJson(res, status, {
      error: { code: status, message, status: status === 429 ? "RESOURCE_EXHAUSTED" : status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT" },
    }),
};

/** `POST …/models/M:countTokens`: the same estimate the answers use. */
export const geminiCountTokens: Protocol = {
  name: "gemini-count-tokens",
  kind: "count",
  accepts: (method, path) => method === "POST" && /\/models\/[^/:]+:countTokens$/.test(path),
  view: (body) => ({ lastUserText: "", hasTools: false, stream: false, prompt: { contents: body.contents } }),
  respond: (res, a) => writeJson(res, 200, { totalTokens: a.usage.inputTokens }),
  error: geminiGenerate.error,
};
