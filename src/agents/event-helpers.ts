import type { AgentEvent } from "../formats/trajectory.js";

/** Longest tool output and text kept in a trajectory event. */
export const maxToolOutput = 2000;
export const maxText = 4000;

export type Json = Record<string, unknown>;

/** A JSON object from one line, or null (not JSON, or not an object). */
export function jsonLine(line: string): Json | null {
  const text = line.trim();
  if (!text.startsWith("{")) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

export const obj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
/** A non-negative finite number, else 0. */
export const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);

export function clip(text: string, max = maxToolOutput): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A text event for a non-JSON stdout line (a CLI's warnings), or nothing for a blank one. */
export function plainLine(line: string): AgentEvent[] {
  const t = line.trim();
  return t ? [{ kind: "text", text: clip(t, maxText) }] : [];
}

/** Paths a tool call names in its arguments (file_path, filePath, path, notebook_path, absolute_path). */
export function pathsOf(args: Json): string[] {
  return ["file_path", "filePath", "path", "notebook_path", "absolute_path"].flatMap((k) => (typeof args[k] === "string" ? [args[k]] : []));
}

/** RCM's auxiliary model call as a `model_call` event of the session (counted apart as auxiliary usage). */
export function auxModelCall(u: {
  model?: string;
  input_tokens?: number;
  output_tokens?: number;
  cached_input_tokens?: number;
  reasoning_tokens?: number;
}): AgentEvent {
  return {
    kind: "model_call",
    model: u.model ?? "rcm-aux",
    input_tokens: u.input_tokens ?? 0,
    output_tokens: u.output_tokens ?? 0,
    cached_input_tokens: u.cached_input_tokens ?? 0,
    reasoning_tokens: u.reasoning_tokens ?? 0,
    reasoning_in_output: true,
    auxiliary: true,
  };
}
