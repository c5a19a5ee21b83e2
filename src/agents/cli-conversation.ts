import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { runProcess, type RunResult } from "../core/process.js";
import { killGroupFromPidFile } from "./command.js";
import { cliLaunch } from "./cli-launch.js";
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
  /** Host paths the CLI needs read-only inside the sandbox beyond its own install (none by default). */
  readonly binds?: readonly string[];
}

/**
 * One native conversation of a CLI agent: one process per request (inside the session's sandbox when
 * there is one; else through a shell that records its pid, the process group, so Ctrl-C and a
 * restarted harness can end it; see cli-launch.ts); stderr is kept with the session's logs. A process that cannot start is an infrastructure fault; a CLI that exits non-zero
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
    const launch = cliLaunch(this.ctx, d.binaryPath, args, d.cwd, d.env, this.pidFile, d.binds ?? [], req.signal);
    const input = d.input(req);
    const onAbort = () => killGroupFromPidFile(this.pidFile);
    req.signal.addEventListener("abort", onAbort);
    try {
      const r = await runProcess(launch.command, launch.args, {
        cwd: launch.cwd,
        env: launch.env,
        ...(launch.signal ? { signal: launch.signal } : {}),
        ...(input !== undefined ? { input } : {}),
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
      keepStderr(this.ctx.logDir, req, r.stderr);
      return requestOutcome(d.cli, r, req, {
        ...(summary.error !== undefined ? { error: summary.error } : {}),
        conversation: this.conversation,
        modelCalls: summary.modelCalls,
      });
    } finally {
      req.signal.removeEventListener("abort", onAbort);
    }
  }

  async close(): Promise<void> {}
}

/** Appends one request's stderr to the session's `stderr.log`. */
export function keepStderr(logDir: string, req: AgentRequest, stderr: string): void {
  if (stderr) appendFileSync(join(logDir, "stderr.log"), `--- request ${req.index}${req.continuation ? " (continuation)" : ""}\n${stderr}`);
}

/**
 * How one CLI request ended: a process that could not start is an infrastructure fault; the deadline
 * is a timeout; an error the CLI reported, a non-zero exit, no conversation id, or no model call on
 * the first request is the agent's error (never retried).
 */
export function requestOutcome(
  cli: string,
  r: RunResult,
  req: AgentRequest,
  seen: { error?: string; conversation: string | null; modelCalls: number },
): AgentResult {
  const tail = r.stderr.trim().slice(-1000);
  const why = tail ? `: ${tail}` : "";
  if (r.spawnError) return { outcome: "infra_fault", detail: `cannot start ${cli}: ${r.spawnError}` };
  // bubblewrap's own failure (before the CLI ran): the machine's fault, not the agent's.
  if (r.code === 1 && r.stderr.startsWith("bwrap: "))
    return { outcome: "infra_fault", detail: `the sandbox could not start ${cli}: ${tail}` };
  if (r.timedOut) return { outcome: "timeout", detail: `no yield within ${Math.round(req.timeoutMs / 1000)} s; process group killed` };
  if (req.signal.aborted) return { outcome: "agent_error", detail: "stopped: the run was interrupted" };
  if (seen.error !== undefined) return { outcome: "agent_error", detail: seen.error };
  if (r.code !== 0) return { outcome: "agent_error", detail: `${cli} exit ${r.code ?? r.signal}${why}` };
  if (seen.conversation === null) return { outcome: "agent_error", detail: `${cli} printed no conversation id${why}` };
  if (seen.modelCalls === 0 && req.turn === 0) return { outcome: "agent_error", detail: `${cli} made no model call${why}` };
  return { outcome: "yielded" };
}
