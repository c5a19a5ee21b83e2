import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { runProcess } from "../core/process.js";
import { killGroupFromPidFile } from "./command.js";
import type { AgentContext, AgentRequest, AgentResult, Conversation, EventSink } from "./types.js";

/** Reads one invocation's output of a CLI into agent events. */
export interface InvocationParser {
  /** One stdout line. */
  line(line: string, emit: EventSink): void;
  /** After the process ended: last events (e.g. usage read from the CLI's session file). */
  end(emit: EventSink): InvocationSummary;
}

export interface InvocationSummary {
  /** An error the CLI reported (a refused or failed model call): the request is an agent error. */
  error?: string;
  /** The CLI's conversation id, once known. */
  conversationId?: string;
  /** Model calls seen in this invocation. */
  modelCalls: number;
}

/** What an adapter supplies to run one request of its CLI. */
export interface CliDriver {
  /** The CLI's name in messages (`claude`, `codex`, `gemini`). */
  readonly cli: string;
  readonly binaryPath: string;
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** argv of one request; `conversation` is the CLI's id of the conversation to resume (null on the first). */
  args(req: AgentRequest, conversation: string | null): string[];
  /** Text written to stdin (undefined: stdin is /dev/null). */
  input(req: AgentRequest): string | undefined;
  /** A parser for one invocation. */
  parser(req: AgentRequest): InvocationParser;
}

/**
 * One native conversation of a CLI agent: one process per request, run through a shell that records
 * its pid (the process group) so Ctrl-C and a restarted harness can end it; stderr is kept with the
 * session's logs. A process that cannot start is an infrastructure fault; a CLI that exits non-zero
 * or reports an error is an agent error (never retried).
 */
export class CliConversation implements Conversation {
  private conversation: string | null;
  private readonly pidFile: string;
  private readonly rawLog: string;

  constructor(
    private readonly ctx: AgentContext,
    private readonly driver: CliDriver,
    /** A conversation id the adapter chose up front (CLIs that accept one), else null. */
    presetConversation: string | null = null,
  ) {
    this.conversation = presetConversation;
    this.pidFile = join(ctx.stateDir, "pid");
    this.rawLog = join(ctx.logDir, `${driver.cli}-output.jsonl`);
    mkdirSync(ctx.logDir, { recursive: true });
  }

  /** The CLI's conversation id (null before the first request, for CLIs that choose it themselves). */
  get id(): string | null {
    return this.conversation;
  }

  private started = false;

  async send(req: AgentRequest, onEvent: EventSink): Promise<AgentResult> {
    const d = this.driver;
    const args = d.args(req, this.started ? this.conversation : null);
    const parser = d.parser(req);
    const script = 'echo $$ > "$SWITCH_SWE_PIDFILE"; exec "$0" "$@"';
    const onAbort = () => killGroupFromPidFile(this.pidFile);
    req.signal.addEventListener("abort", onAbort);
    try {
      const r = await runProcess("sh", ["-c", script, d.binaryPath, ...args], {
        cwd: d.cwd,
        env: { ...d.env, SWITCH_SWE_PIDFILE: this.pidFile },
        ...(d.input(req) !== undefined ? { input: d.input(req)! } : {}),
        timeoutMs: req.timeoutMs,
        maxBuffer: 4 * 1024 * 1024,
        onStdoutLine: (line) => {
          // The CLI's own event stream is kept with the session's logs (audits, new fixtures).
          appendFileSync(this.rawLog, `${line}\n`);
          parser.line(line, onEvent);
        },
      });
      const summary = parser.end(onEvent);
      if (summary.error !== undefined) onEvent({ kind: "error", message: summary.error });
      if (summary.conversationId) this.conversation = summary.conversationId;
      if (summary.modelCalls > 0 || summary.conversationId) this.started = true;
      if (r.stderr) appendFileSync(join(this.ctx.logDir, "stderr.log"), `--- request ${req.index}${req.continuation ? " (continuation)" : ""}\n${r.stderr}`);
      const tail = r.stderr.trim().slice(-1000);
      if (r.spawnError) return { outcome: "infra_fault", detail: `cannot start ${d.cli}: ${r.spawnError}` };
      if (r.timedOut) return { outcome: "timeout", detail: `no yield within ${Math.round(req.timeoutMs / 1000)} s; process group killed` };
      if (req.signal.aborted) return { outcome: "agent_error", detail: "stopped: the run was interrupted" };
      if (summary.error !== undefined) return { outcome: "agent_error", detail: summary.error };
      if (r.code !== 0) return { outcome: "agent_error", detail: `${d.cli} exit ${r.code ?? r.signal}${tail ? `: ${tail}` : ""}` };
      if (this.conversation === null) return { outcome: "agent_error", detail: `${d.cli} printed no conversation id${tail ? `: ${tail}` : ""}` };
      if (summary.modelCalls === 0 && req.turn === 0) return { outcome: "agent_error", detail: `${d.cli} made no model call${tail ? `: ${tail}` : ""}` };
      return { outcome: "yielded" };
    } finally {
      req.signal.removeEventListener("abort", onAbort);
    }
  }

  async close(): Promise<void> {}
}
