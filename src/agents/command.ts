import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { inputError } from "../core/errors.js";
import { runProcess } from "../core/process.js";
import { programsOf } from "../confine/session-sandbox.js";
import { agentEventSchema, type AgentEvent } from "../formats/trajectory.js";
import { cliOptionFields, requireVariables } from "./cli-options.js";
import { programOf, resolveOnPath } from "./command-path.js";
import { agentEnv, envNames } from "./private-env.js";
import { passedVariables } from "../confine/passed-env.js";
import { validateAgentOptions } from "./options.js";
import type { Agent, AgentContext, AgentFactory, AgentRequest, AgentResult, Conversation, EventSink } from "./types.js";

const commandOptionsSchema = z
  .object({
    /** A shell command line run with `sh -c` once per request, in the workspace. */
    command: z.string({ error: "required: --agent-opt command=CMD" }).trim().min(1, "must not be empty"),
    /** Variables of the caller's environment the command gets, comma-separated (nothing else leaks in). */
    env: cliOptionFields.env,
    /** Model endpoints (URLs, comma-separated) the command may reach under `--network model`; none by default. */
    endpoints: z
      .string()
      .optional()
      .refine((v) => (v ?? "").split(",").every((u) => u.trim() === "" || URL.canParse(u.trim())), "must be URL,URL2,…"),
  })
  .strict();

export type CommandOptions = z.infer<typeof commandOptionsSchema> & { pass?: string[] };

/** Longest text kept from a stdout line that is not an event, and from stderr in a detail. */
const maxTextChars = 4000;
const maxDetailChars = 1000;

/**
 * Runs a user-supplied command per request: the message on stdin; workspace, request index and
 * conversation id in SWITCH_SWE_* variables (nothing that names the task, condition or role); cwd = the
 * workspace; inside the session's sandbox when there is one. Stdout lines that are agent events
 * (JSON, trajectory-schema.ts) are recorded as such, any other line as a text event.
 */
export const commandAgent: AgentFactory<CommandOptions> = {
  name: "command",
  description: "runs --agent-opt command=CMD (sh -c) per request; stdout JSON lines are agent events",
  capabilities: { confinable: true, limits: true, harnessSide: false, submission: "checkout" },
  parse: (options) => {
    const parsed = validateAgentOptions("command", commandOptionsSchema, options);
    const pass = envNames(parsed.env);
    requireVariables(pass, "env");
    const program = programOf(parsed.command);
    if (program !== null && resolveOnPath(program) === null) {
      throw inputError("--agent-opt", "command", `program "${program}" not found${program.startsWith("/") ? "" : " on PATH"}`);
    }
    return { ...parsed, pass };
  },
  create: (options): Agent => ({
    name: "command",
    endpoints: (options.endpoints ?? "")
      .split(",")
      .map((u) => u.trim())
      .filter((u) => u !== ""),
    startConversation: async (ctx) => {
      mkdirSync(ctx.stateDir, { recursive: true });
      mkdirSync(ctx.logDir, { recursive: true });
      return new CommandConversation(ctx, options.command, options.pass ?? []);
    },
  }),
};

/** Parses one stdout line: an agent event when it is one, otherwise text (never throws). */
export function eventFromLine(line: string): AgentEvent | null {
  const text = line.trim();
  if (text === "") return null;
  if (text.startsWith("{")) {
    try {
      const parsed = agentEventSchema.safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data;
    } catch {
      // not JSON: recorded as text below
    }
  }
  return { kind: "text", text: text.length > maxTextChars ? `${text.slice(0, maxTextChars)}…` : text };
}

class CommandConversation implements Conversation {
  private readonly pidFile: string;

  constructor(
    private readonly ctx: AgentContext,
    private readonly command: string,
    private readonly pass: readonly string[],
  ) {
    this.pidFile = join(ctx.stateDir, "pid");
  }

  /** The program to start for one request: `sh -c` on the host, or inside the session's sandbox. */
  private start(req: AgentRequest): { command: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv } {
    // Nothing names the task, condition or role (no SWITCH_SWE_SESSION): only where and which request.
    const vars = {
      SWITCH_SWE_WORKSPACE: req.workspacePath,
      SWITCH_SWE_REQUEST_INDEX: String(req.index),
      SWITCH_SWE_CONVERSATION: this.ctx.conversationId,
      SWITCH_SWE_TURN: String(req.turn),
      SWITCH_SWE_CONTINUATION: req.continuation ? "1" : "0",
    };
    const sb = this.ctx.sandbox;
    if (sb) {
      // A new PID namespace per request: its processes die with it; no pid file is needed.
      const w = sb.wrap(["sh", "-c", this.command], req.workspacePath, programsOf(this.command));
      return { ...w, cwd: "/", env: sb.env({ ...passedVariables(this.pass), ...vars, SWITCH_SWE_STATE_DIR: sb.insideStateDir }) };
    }
    // A private HOME (with XDG directories) per session, and only the variables the caller named.
    const env = agentEnv(join(this.ctx.stateDir, "home"), this.pass, {
      ...vars,
      SWITCH_SWE_STATE_DIR: this.ctx.stateDir,
      SWITCH_SWE_PIDFILE: this.pidFile,
    });
    // The first line records the process group id (the shell's pid), so the group can be ended on Ctrl-C
    // and found again after the harness itself was killed. The user's command follows unchanged.
    return { command: "sh", args: ["-c", `echo $$ > "$SWITCH_SWE_PIDFILE"\n${this.command}`], cwd: req.workspacePath, env };
  }

  async send(req: AgentRequest, onEvent: EventSink): Promise<AgentResult> {
    const unlimited = this.start(req);
    const start = this.ctx.limits ? { ...unlimited, ...this.ctx.limits.wrap(unlimited.command, unlimited.args) } : unlimited;
    const onAbort = () => killGroupFromPidFile(this.pidFile);
    req.signal.addEventListener("abort", onAbort);
    let sawOutput = false;
    try {
      const r = await runProcess(start.command, start.args, {
        cwd: start.cwd,
        env: start.env,
        signal: req.signal,
        input: req.message,
        timeoutMs: req.timeoutMs,
        maxBuffer: 1024 * 1024,
        onStdoutLine: (line) => {
          const event = eventFromLine(line);
          if (event) {
            sawOutput = true;
            onEvent(event);
          }
        },
      });
      if (r.stderr) {
        appendFileSync(
          join(this.ctx.logDir, "stderr.log"),
          `--- request ${req.index}${req.continuation ? " (continuation)" : ""}\n${r.stderr}`,
        );
      }
      const stderrTail = r.stderr.trim().slice(-maxDetailChars);
      if (r.spawnError) return { outcome: "infra_fault", detail: `cannot start sh: ${r.spawnError}` };
      if (r.timedOut) return { outcome: "timeout", detail: `no yield within ${Math.round(req.timeoutMs / 1000)} s; process group killed` };
      if (req.signal.aborted) return { outcome: "agent_error", detail: "stopped: the run was interrupted" };
      if (r.code === 0) return { outcome: "yielded" };
      // 126/127: the shell could not run the program (not found, not executable): a fault outside the agent.
      if (r.code === 126 || r.code === 127)
        return { outcome: "infra_fault", detail: `command cannot start (exit ${r.code}): ${stderrTail}` };
      const code = r.code === null ? `signal ${r.signal ?? "?"}` : `exit ${r.code}`;
      const atOnce = req.turn === 0 && !sawOutput && r.durationMs < 2000 ? "exited at once, no output; " : "";
      return { outcome: "agent_error", detail: `${atOnce}${code}${stderrTail ? `: ${stderrTail}` : ""}` };
    } finally {
      req.signal.removeEventListener("abort", onAbort);
    }
  }

  async close(): Promise<void> {}
}

export function readPidFile(pidFile: string): number | null {
  try {
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    return Number.isInteger(pid) && pid > 1 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * After the harness itself was killed (kill -9), the agent of a cut-off attempt may still run. Its group
 * is ended only when /proc shows that the process is the one this pid file belongs to (Linux), never on a
 * guess: a recycled pid is left alone. Returns the group id that was ended, or null.
 */
export function killStaleGroup(pidFile: string): number | null {
  const pid = readPidFile(pidFile);
  if (pid === null) return null;
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, "utf8");
  } catch {
    return null;
  }
  if (!environ.split("\0").includes(`SWITCH_SWE_PIDFILE=${pidFile}`)) return null;
  return killGroupFromPidFile(pidFile);
}

/** Ends the process group recorded in a pid file (SIGTERM, then SIGKILL); returns the group id or null. */
export function killGroupFromPidFile(pidFile: string): number | null {
  const pid = readPidFile(pidFile);
  if (pid === null) return null;
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };
  kill("SIGTERM");
  setTimeout(() => kill("SIGKILL"), 2000).unref();
  return pid;
}
