import { realpathSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { agentEnv, privateHome } from "./private-env.js";
import { passedVariables } from "../confine/passed-env.js";
import type { AgentContext } from "./types.js";

/**
 * How a real CLI agent (OpenCode, Claude Code, Codex, Gemini CLI) is started for one request: on the
 * host, or inside the session's sandbox (src/confine/session-sandbox.ts). Inside, the CLI sees the five
 * workspaces, its private HOME (where the harness wrote its configuration), its state directory, its
 * own install read-only, and nothing else; each request is a new PID namespace, so every process the
 * CLI or its tools started dies when the request ends.
 */

/** A directory of the session as the harness sees it (`host`) and as the agent sees it (`inside`; the same when unsandboxed). */
export interface Place {
  host: string;
  inside: string;
}

/** The session's private HOME: the sandbox's, or `unsandboxed` (a host directory). */
export function cliHome(ctx: AgentContext, unsandboxed: string): Place {
  return ctx.sandbox ? ctx.sandbox.home : { host: unsandboxed, inside: unsandboxed };
}

/** The agent's state directory. */
export function cliState(ctx: AgentContext): Place {
  return { host: ctx.stateDir, inside: ctx.sandbox?.insideStateDir ?? ctx.stateDir };
}

/** A directory below `place`, on both sides. */
export function below(place: Place, ...parts: string[]): Place {
  return { host: join(place.host, ...parts), inside: join(place.inside, ...parts) };
}

/**
 * The CLI's whole environment: the system variables, the variables the caller named, the private
 * HOME and XDG directories (created on the host, named as the agent sees them), then the CLI's own
 * settings. Inside a sandbox, PATH, HOME and TMPDIR are those of the inside.
 */
export function cliEnv(ctx: AgentContext, home: Place, pass: readonly string[], own: Record<string, string>): Record<string, string> {
  if (!ctx.sandbox) return agentEnv(home.host, pass, own);
  const xdg = Object.fromEntries(Object.entries(privateHome(home.host)).map(([k, v]) => [k, join(home.inside, relative(home.host, v))]));
  const env = ctx.sandbox.env({ ...passedVariables(pass), ...xdg, ...own });
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/**
 * What must be visible (read-only) inside for the CLI at `binary` to run: the path as given (a
 * `node_modules/.bin` link), and the `node_modules` tree its package lives in (the package and the
 * dependencies npm placed beside it; no data of the harness), else the program file alone (never its
 * directory, which may hold anything).
 */
export function installDirs(binary: string): string[] {
  let real: string;
  try {
    real = realpathSync(binary);
  } catch {
    return [binary];
  }
  const parts = real.split(sep);
  const i = parts.lastIndexOf("node_modules");
  const tree = i > 0 ? parts.slice(0, i + 1).join(sep) : real;
  // A link inside the tree comes with it (binding it again would need a mount point in a read-only tree).
  return binary === tree || binary.startsWith(`${tree}${sep}`) ? [tree] : [tree, binary];
}

export interface Launch {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Passed to runProcess: the sandbox ends with its process group on Ctrl-C. */
  signal?: AbortSignal;
}

/**
 * The process of one request. Unsandboxed: a shell that records its pid (the process group) in
 * `pidFile` and becomes the CLI, so Ctrl-C and a restarted harness can end the group. Sandboxed:
 * `bwrap` (its PID namespace dies with it; `--die-with-parent` covers a harness killed with -9), with
 * the CLI's install and `binds` read-only.
 */
export function cliLaunch(
  ctx: AgentContext,
  binary: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  pidFile: string,
  binds: readonly string[],
  signal: AbortSignal,
): Launch {
  if (ctx.sandbox) {
    const w = ctx.sandbox.wrap([binary, ...args], cwd, [...installDirs(binary), ...binds]);
    return { ...w, ...limited(ctx, w.command, w.args), cwd: "/", env, signal };
  }
  const script = 'echo $$ > "$SWITCH_SWE_PIDFILE"; exec "$0" "$@"';
  return { ...limited(ctx, "sh", ["-c", script, binary, ...args]), cwd, env: { ...env, SWITCH_SWE_PIDFILE: pidFile } };
}

/** The session's resource limits (one cgroup per session), entered before the CLI or its sandbox starts. */
function limited(ctx: AgentContext, command: string, args: string[]): { command: string; args: string[] } {
  return ctx.limits ? ctx.limits.wrap(command, args) : { command, args };
}
