import type { Usage } from "./submission-schema.js";

// Kept apart from model-client.ts so that only `handoff run` loads the AI SDK.

/** One model reply; the runner never sees the client library. */
export interface ModelReply {
  text: string;
  reasoning?: string;
  modelVersion?: string;
  finishReason?: string;
  responseId?: string;
  usage: Usage;
  warnings: string[];
}

/** Sends one prompt in a fresh conversation; throws RequestFailed when no reply came back. */
export type AskModel = (prompt: string) => Promise<ModelReply>;

export class RequestFailed extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "RequestFailed";
  }
}
