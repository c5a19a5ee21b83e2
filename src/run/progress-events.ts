/** What a run reports while it works (printed by a reporter, or as JSON lines with --json). */
export type ProgressEvent =
  | { type: "run_start"; time: string; run_dir: string; sessions: number; skipped: number; requests: number; concurrency: number }
  | { type: "session_start"; time: string; session: string; attempt: number; requests: number }
  | { type: "workspaces_ready"; time: string; session: string; attempt: number; duration_ms: number; mode: "overlay" | "copy" }
  | {
      type: "request_start";
      time: string;
      session: string;
      index: number;
      requests: number;
      kind: "stage" | "finalization";
      workspace: string;
      continuation: boolean;
    }
  | { type: "request_end"; time: string; session: string; index: number; outcome: string; duration_ms: number; detail?: string }
  | {
      type: "session_end";
      time: string;
      session: string;
      attempt: number;
      status: "finished" | "failed" | "infra_fault" | "interrupted";
      /** For infra_fault: whether the session will be tried again. */
      retry?: boolean;
      detail?: string;
    }
  | { type: "warning"; time: string; session?: string; message: string }
  | { type: "verify"; time: string; session: string; resolved: boolean; infra_fault: boolean; reused: boolean; done: number; total: number }
  | {
      type: "run_end";
      time: string;
      finished: number;
      failed: number;
      skipped: number;
      interrupted: boolean;
      elapsed_ms: number;
    };

export type ProgressSink = (event: ProgressEvent) => void;

export const nowIso = (): string => new Date().toISOString();
