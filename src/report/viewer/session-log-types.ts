/**
 * What the session viewer shows of one trajectory (docs/report-format.md, "Session viewer"): per request,
 * its timing, usage, model and tool calls and the files it changed. Written by session-log.ts, gzipped into
 * the page, read by the page's script (src/report/page/). Plain types, no zod schema: the page carries no
 * zod, and writer and reader are built from the same commit; the trajectory it comes from is validated
 * line by line by the trajectory schema.
 */

/** Text longer than the viewer keeps: the start, and how long the whole was (read the rest in trajectory.jsonl). */
export interface Clipped {
  text: string;
  /** Characters in the trajectory (> text.length when clipped). */
  length: number;
}

export type ViewerEvent =
  | { kind: "model_call"; model: string | null; tokens_in: number; tokens_out: number; cost_usd: number | null; auxiliary: boolean }
  | { kind: "tool_call"; name: string; args: Clipped | null; status: string | null; paths: string[]; output: Clipped | null }
  | { kind: "text"; text: Clipped }
  | { kind: "error"; message: Clipped }
  /** What the RCM proxy (`run --rcm`) sent upstream for one model call, in one line. */
  | { kind: "context"; summary: string };

export interface ViewerFileChange {
  path: string;
  /** Blob ids (null: the file did not exist before / after). */
  before: string | null;
  after: string | null;
}

export interface ViewerRequest {
  /** Index into the session's schedule. */
  index: number;
  /** The message sent (the first delivery's). */
  message: Clipped | null;
  started: string | null;
  ended: string | null;
  /** Wall time of every delivery of the request (continuations included), from request_end. */
  duration_ms: number | null;
  deliveries: number;
  outcome: string | null;
  tokens_in: number;
  tokens_out: number;
  cost_usd: number | null;
  model_calls: number;
  tool_calls: number;
  models: string[];
  events: ViewerEvent[];
  /** Files changed by this request, per workspace (from the workspace_state line after it). */
  changed: Record<string, ViewerFileChange[]>;
}

export interface SessionLog {
  attempt: number;
  requests: ViewerRequest[];
  /** Lines of the last attempt that the viewer skipped (not JSON or off-schema). */
  skipped_lines: number;
}
