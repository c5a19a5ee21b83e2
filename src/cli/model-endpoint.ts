import { InvalidArgumentError } from "commander";

/** Well-known OpenAI-compatible endpoints; any other provider needs a base URL. */
export const KNOWN_BASE_URLS: Record<string, string> = {
  openai: "https://api.openai.com/v1",
  openrouter: "https://openrouter.ai/api/v1",
  groq: "https://api.groq.com/openai/v1",
  deepseek: "https://api.deepseek.com/v1",
  ollama: "http://127.0.0.1:11434/v1",
};

/** PROVIDER:MODEL; the model part may itself contain colons (e.g. ollama's llama3.1:8b). */
export function providerModel(value: string, flag = "--model"): { provider: string; model: string } {
  const at = value.indexOf(":");
  const provider = value.slice(0, at);
  const model = value.slice(at + 1);
  if (at <= 0 || model === "" || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(provider)) {
    throw new InvalidArgumentError(`${flag} is PROVIDER:MODEL (e.g. openai:gpt-4.1-2025-04-14), got "${value}"`);
  }
  return { provider, model };
}

/** A sampling temperature, or "default" to send none. */
export function parseTemperature(flag: string) {
  return (value: string): number | null => {
    if (value === "default") return null;
    const t = Number(value);
    if (value.trim() === "" || !Number.isFinite(t) || t < 0)
      throw new InvalidArgumentError(`${flag} is a number >= 0 or "default", got "${value}"`);
    return t;
  };
}
